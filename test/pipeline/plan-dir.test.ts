import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const PLAN = path.join(ROOT, 'scripts', 'pipeline', 'plan');

/** The plan stage deletes and recreates PIPELINE_DIR: it checks first, and deletes only its own folder. */
describe('scripts/pipeline/plan: PIPELINE_DIR and ENVIRONMENT are checked before anything is deleted', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-dir-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const plan = (env: Record<string, string>) =>
    spawnSync('bash', [PLAN], { encoding: 'utf8', cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ...env } });

  test('an ENVIRONMENT that is a path ("../..") is refused; the folder it would have named survives', () => {
    const victim = path.join(dir, 'work', 'keep.txt');
    fs.mkdirSync(path.dirname(victim));
    fs.writeFileSync(victim, 'x');
    const r = plan({ ENVIRONMENT: '../..', PIPELINE_DIR: path.join(dir, 'work', 'pipeline-out', '..') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ENVIRONMENT must be an environment name (lowercase letters, digits and "-", at most 24), found "../.."');
    expect(fs.existsSync(victim)).toBe(true);
  });

  test.each([
    ['the checkout', ROOT, 'is the checkout or a folder above it'],
    ['a folder above the checkout', path.dirname(ROOT), 'is the checkout or a folder above it'],
    ['/', '/', 'is / or the home directory'],
  ])('PIPELINE_DIR = %s is refused', (_what, pipelineDir, message) => {
    const r = plan({ ENVIRONMENT: 'dev', PIPELINE_DIR: pipelineDir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`PIPELINE_DIR=${pipelineDir} ${message}: refusing to delete it`);
  });

  test('the home directory is refused', () => {
    const r = plan({ ENVIRONMENT: 'dev', PIPELINE_DIR: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`PIPELINE_DIR=${dir} is / or the home directory: refusing to delete it`);
  });

  test('a folder with files but no pipeline.json is refused and kept', () => {
    const target = path.join(dir, 'mine');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'notes.txt'), 'x');
    const r = plan({ ENVIRONMENT: 'dev', PIPELINE_DIR: target, HOME: os.tmpdir() });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`PIPELINE_DIR=${target} holds files but no pipeline.json (not an earlier plan's artifact folder): refusing to delete it`);
    expect(fs.readdirSync(target)).toEqual(['notes.txt']);
  });

  test('a symbolic link is refused', () => {
    const target = path.join(dir, 'link');
    fs.symlinkSync(fs.mkdtempSync(path.join(dir, 'elsewhere-')), target);
    const r = plan({ ENVIRONMENT: 'dev', PIPELINE_DIR: target, HOME: os.tmpdir() });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`PIPELINE_DIR=${target} is not a plain folder: refusing to delete it`);
  });

  test.each([
    ['missing', () => path.join(dir, 'new')],
    ['empty', () => fs.mkdtempSync(path.join(dir, 'empty-'))],
    ['an earlier artifact folder', () => {
      const earlier = path.join(dir, 'earlier');
      fs.mkdirSync(path.join(earlier, 'plans'), { recursive: true });
      fs.writeFileSync(path.join(earlier, 'pipeline.json'), '{}');
      return earlier;
    }],
  ])('a folder that is %s may be replaced', (_what, make) => {
    const target = make();
    const r = spawnSync('bash', ['-c', `. scripts/pipeline/lib.sh && PIPELINE_DIR="$1" ENVIRONMENT=dev pipeline_dir_replaceable && echo replaceable`, 'check', target], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: os.tmpdir() },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('replaceable\n');
  });
});
