/**
 * The plan stage counts a stack's changes from its saved plan file (scripts/pipeline/planfile.js),
 * without `terraform show -json` and the provider processes it starts: with real Terraform plans,
 * the counts equal those of `terraform show -json` for every kind of change.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const HELPER = path.join(ROOT, 'scripts', 'pipeline', 'stacks.js');
const HAS_TERRAFORM = spawnSync('sh', ['-c', 'command -v terraform']).status === 0;
if (!HAS_TERRAFORM && process.env.CI !== 'true') console.warn('plan count tests skipped: terraform is not on PATH (npm run toolchain; source scripts/toolchain/env.sh)');
const suite = HAS_TERRAFORM || process.env.CI === 'true' ? describe : describe.skip;

suite('stacks.js plan-counts <saved plan>', () => {
  let dir: string;
  const tf = (...args: string[]) => {
    const r = spawnSync('terraform', [`-chdir=${dir}`, ...args, '-no-color'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
    if (r.status !== 0) throw new Error(`terraform ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const write = (resources: object) => fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: resources } }));
  const fromFile = (plan: string) => spawnSync('node', [HELPER, 'plan-counts', path.join(dir, plan)], { encoding: 'utf8' });
  const fromShowJson = (plan: string) => spawnSync('node', [HELPER, 'plan-counts'], { encoding: 'utf8', input: tf('show', '-json', plan) }).stdout;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-counts-'));
    write({ replaced: { triggers_replace: '1' }, updated: { input: '1' }, deleted: { input: '1' }, kept: { input: '1' } });
    tf('init', '-input=false');
    tf('plan', '-input=false', '-out=first.tfplan');
    tf('apply', '-input=false', 'first.tfplan');
    write({ replaced: { triggers_replace: '2' }, updated: { input: '2' }, kept: { input: '1' }, created: { input: '1' } });
    tf('plan', '-input=false', '-out=mixed.tfplan');
    tf('plan', '-input=false', '-destroy', '-out=destroy.tfplan');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('create, update, delete and replace, as terraform show -json counts them; no-op is not counted', () => {
    const r = fromFile('mixed.tfplan');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('1 1 1 1\n');
    expect(r.stdout).toBe(fromShowJson('mixed.tfplan'));
  });

  test('a first plan creates everything; a destroy plan deletes everything', () => {
    expect(fromFile('first.tfplan').stdout).toBe('4 0 0 0\n');
    expect(fromFile('destroy.tfplan').stdout).toBe('0 0 4 0\n');
    expect(fromFile('destroy.tfplan').stdout).toBe(fromShowJson('destroy.tfplan'));
  });

  test('a file that is not a plan is an error naming it', () => {
    fs.writeFileSync(path.join(dir, 'not-a-plan'), 'hello');
    const r = fromFile('not-a-plan');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot count the changes of ${path.join(dir, 'not-a-plan')}`);
    expect(r.stdout).toBe('');
  });
});
