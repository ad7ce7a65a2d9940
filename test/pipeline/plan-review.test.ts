/**
 * The apply job runs a saved plan only if it is the reviewed plan of the configuration the job
 * synthesizes itself (scripts/pipeline/review.js), with real Terraform plans: a plan job that was
 * taken over saves plans of a configuration of its own making, and `terraform apply <plan>` runs
 * the configuration inside the plan, not the files beside it.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const REVIEW = path.join(ROOT, 'scripts', 'pipeline', 'review.js');
const HAS_TERRAFORM = spawnSync('sh', ['-c', 'command -v terraform']).status === 0;
if (!HAS_TERRAFORM && process.env.CI !== 'true') console.warn('plan review tests skipped: terraform is not on PATH (npm run toolchain; source scripts/toolchain/env.sh)');

const suite = HAS_TERRAFORM || process.env.CI === 'true' ? describe : describe.skip;

suite('scripts/pipeline/review.js: the apply job refuses a saved plan that is not the reviewed plan of its own synthesis', () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let ownDir: string;
  let planDir: string;
  let legit: { config: string; plan: string };
  let marker: string;

  /** What cdktf synthesizes for the stack (a local module too, which user apps may have). */
  const config = () => ({
    terraform: { backend: { local: { path: path.join(work, 'state', 'dev-a.tfstate') } } },
    variable: {
      environment: { type: 'string', default: 'dev', validation: [{ condition: '${var.environment == "dev"}', error_message: 'dev only' }] },
      tag: { type: 'string', default: 'a' },
    },
    module: { net: { source: './net' } },
    resource: { terraform_data: { gate: { input: '${var.tag}', provisioner: [{ 'local-exec': { command: 'echo gate ${self.input}' } }] } } },
  });

  const tf = (dir: string, ...args: string[]) => {
    const flags = args[0] === 'show' ? ['-no-color'] : ['-input=false', '-no-color'];
    const r = spawnSync('terraform', [`-chdir=${dir}`, args[0], ...flags, ...args.slice(1)], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`terraform ${args.join(' ')} in ${dir} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  /** A synthesized, initialized stack directory at <base>/stacks/dev-a. */
  function synthesized(base: string, doc: object = config(), extra: Record<string, string> = {}): string {
    const dir = path.join(work, base, 'stacks', 'dev-a');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'net'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(doc, null, 2));
    fs.writeFileSync(path.join(dir, 'net', 'main.tf.json'), JSON.stringify({ resource: { terraform_data: { net: { input: 'n' } } } }, null, 2));
    for (const [name, text] of Object.entries(extra)) fs.writeFileSync(path.join(dir, name), text);
    tf(dir, 'init');
    return dir;
  }

  const review = (...args: string[]) => spawnSync('node', [REVIEW, ...args], { encoding: 'utf8', env });
  const digests = (planFile: string) => {
    const [config, plan] = review('digests', planFile).stdout.trim().split(' ');
    return { config, plan };
  };
  /** The apply job's check of a plan of the plan job's directory against its own directory. */
  const check = (planFile: string, expected: { config: string; plan: string } = digests(planFile)) => {
    const r = review('check', ownDir, planFile, expected.config, expected.plan);
    return { status: r.status, problems: r.stderr };
  };

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-review-'));
    fs.writeFileSync(path.join(work, 'terraformrc'), '');
    env = { PATH: process.env.PATH, HOME: work, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: path.join(work, 'terraformrc') };
    marker = path.join(work, 'pwned');
    ownDir = synthesized('cdktf.apply');
    planDir = synthesized('cdktf.out');
    tf(planDir, 'plan', '-out=legit.tfplan');
    legit = digests(path.join(planDir, 'legit.tfplan'));
  }, 120_000);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test('the plan of the same configuration passes; its configuration digest is the one a reviewer computes from the synthesis', () => {
    expect(legit.config).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(legit.plan).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(check(path.join(planDir, 'legit.tfplan'))).toEqual({ status: 0, problems: '' });
    expect(review('config-digest', ownDir).stdout.trim()).toBe(legit.config);
  });

  test('a plan with an extra local-exec (which the plan text does not show, and which Terraform would run) is refused, naming it', () => {
    const forged = config();
    (forged.resource.terraform_data as Record<string, unknown>).pwn = { input: 'x', provisioner: [{ 'local-exec': { command: `touch ${marker}` } }] };
    const dir = synthesized('forged-extra', forged);
    tf(dir, 'plan', '-out=pipeline.tfplan');
    const planFile = path.join(dir, 'pipeline.tfplan');
    // what a reviewer reads does not show the command
    expect(tf(dir, 'show', 'pipeline.tfplan')).not.toContain('touch');
    const r = check(planFile);
    expect(r.status).toBe(1);
    expect(r.problems).toContain('cdk.tf.json: resource.terraform_data.pwn is only in the plan (it holds a provisioner)');
    // the forged plan is a working one: applied as it is, it runs the command
    const scratch = fs.mkdtempSync(path.join(work, 'scratch-'));
    fs.copyFileSync(planFile, path.join(scratch, 'p.tfplan'));
    tf(dir, 'apply', path.join(scratch, 'p.tfplan'));
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(path.join(work, 'state'), { recursive: true, force: true });
  });

  test('a changed command in a provisioner of the configuration is refused', () => {
    const forged = config();
    forged.resource.terraform_data.gate.provisioner[0]['local-exec'].command = 'echo gate ${self.input}; id';
    const dir = synthesized('forged-command', forged);
    tf(dir, 'plan', '-out=pipeline.tfplan');
    const r = check(path.join(dir, 'pipeline.tfplan'));
    expect(r.status).toBe(1);
    expect(r.problems).toContain('cdk.tf.json: resource.terraform_data.gate.provisioner[0].local-exec.command differs');
  });

  test('an extra configuration file (HCL) or a changed module file is refused', () => {
    const dir = synthesized('forged-file', config(), { 'zz_extra.tf': 'resource "terraform_data" "x" {}\n' });
    fs.writeFileSync(path.join(dir, 'net', 'main.tf.json'), JSON.stringify({ resource: { terraform_data: { net: { input: 'other' } } } }));
    tf(dir, 'plan', '-out=pipeline.tfplan');
    const r = check(path.join(dir, 'pipeline.tfplan'));
    expect(r.status).toBe(1);
    expect(r.problems).toContain('root module: file zz_extra.tf is only in the plan');
    expect(r.problems).toContain('net/main.tf.json: resource.terraform_data.net.input differs');
  });

  test('a plan that writes its state elsewhere (the configuration files unchanged) is refused, naming the setting, not its value', () => {
    const dir = synthesized('forged-backend');
    const elsewhere = path.join(work, 'elsewhere.tfstate');
    tf(dir, 'init', '-reconfigure', `-backend-config=path=${elsewhere}`);
    tf(dir, 'plan', '-out=pipeline.tfplan');
    const r = check(path.join(dir, 'pipeline.tfplan'));
    expect(r.status).toBe(1);
    expect(r.problems).toContain("the plan's local backend settings differ from this job's in: path");
    expect(r.problems).not.toContain(elsewhere);
  });

  test('a plan with a variable set to another value than its default is refused', () => {
    const dir = synthesized('forged-variable');
    tf(dir, 'plan', '-var', 'tag=b', '-out=pipeline.tfplan');
    const r = check(path.join(dir, 'pipeline.tfplan'));
    expect(r.status).toBe(1);
    expect(r.problems).toContain('variable tag holds another value than its default (the pipeline sets no variable)');
    // the same value given explicitly is the same plan input
    tf(dir, 'plan', '-var', 'tag=a', '-out=same.tfplan');
    expect(check(path.join(dir, 'same.tfplan')).status).toBe(0);
  });

  test('another plan of the same configuration than the one the summary names is refused (plan digest)', () => {
    tf(planDir, 'plan', '-out=later.tfplan');
    const r = check(path.join(planDir, 'later.tfplan'), legit);
    expect(r.status).toBe(1);
    expect(r.problems).toMatch(/the plan file's digest is sha256:[0-9a-f]{64}, the reviewed summary names sha256:[0-9a-f]{64}/);
    expect(check(path.join(planDir, 'legit.tfplan'), { ...legit, config: `sha256:${'0'.repeat(64)}` }).problems).toContain(`the reviewed summary names sha256:${'0'.repeat(64)}`);
  });

  test('a plan file that Terraform and this check could read two ways (an entry twice: Go keeps the last) is refused', () => {
    const forged = path.join(work, 'duplicate.tfplan');
    const script = [
      'import sys, zipfile, warnings',
      'warnings.simplefilter("ignore")',
      'src, dst = sys.argv[1], sys.argv[2]',
      'with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:',
      '    for item in zin.infolist():',
      '        zout.writestr(item.filename, zin.read(item.filename))',
      '    zout.writestr("tfconfig/m-/cdk.tf.json", b"{}")',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script, path.join(planDir, 'legit.tfplan'), forged], { encoding: 'utf8' });
    expect(py.stderr).toBe('');
    const r = check(forged);
    expect(r.status).toBe(1);
    expect(r.problems).toContain('zip entry tfconfig/m-/cdk.tf.json occurs twice');
  });

  test('a file that is no plan is refused with the reason', () => {
    const file = path.join(work, 'not-a-plan');
    fs.writeFileSync(file, 'PK\u0003\u0004 not really');
    const r = review('check', ownDir, file, legit.config, legit.plan);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file} is not a saved plan this check can read: it is not a zip archive`);
  });
});
