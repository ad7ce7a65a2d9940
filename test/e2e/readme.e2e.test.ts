/**
 * The README's commands are promises: the Quickstart and the "Try it without a cloud" walk run
 * here exactly as printed, each code block as one bash script (`set -euo pipefail`), in a fresh
 * clone of this repository, in the order a newcomer follows them (the walk builds on the
 * quickstart's `npm ci`). The walk needs the local cloud's packages and skips, with a message,
 * when the local cloud is not running, unless LOCAL_CLOUD_REQUIRED=1.
 *
 * @e2e-lane 0 the walk uses the local cloud's own clouds.yaml by its documented path, as printed
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { probeLocalCloud } from './support/local-cloud-probe';
import { LOCAL_CLOUDS_YAML } from './support/management-cloud';

const ROOT = path.resolve(__dirname, '..', '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const cloud = probeLocalCloud(LOCAL_CLOUDS_YAML, 'local-e2e');

/** The ```sh blocks of the README section with this heading. */
function shellBlocks(heading: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly seconds: number;
}

/** How long one README block may run (see runBlock). */
const BLOCK_LIMIT_MS = 50 * 60_000;

/**
 * One block as printed, in the clone; OS_* and toolchain variables of this process stay out.
 * README_TESTS_SUMMARY_FILE (set by .ci/run, which runs `npm test` only here) becomes the block's
 * TEST_SUMMARY_FILE, so the Quickstart's unit tier is counted in the run's summary as its own tier.
 * Niced: the blocks are throughput work beside the other lanes' controllers. That makes them slow
 * on a busy machine: in a warm CI run (every lane, the stand-in suites and the cdktn tier at once
 * on 2 cores) the Quickstart's unit tier ran past 25 minutes; hence the 50-minute limit.
 */
function runBlock(block: string, cwd: string): Run {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', CHECKPOINT_DISABLE: '1', NO_COLOR: '1', FORCE_COLOR: '0' };
  if (process.env.README_TESTS_SUMMARY_FILE) env.TEST_SUMMARY_FILE = process.env.README_TESTS_SUMMARY_FILE;
  const started = Date.now();
  const r = spawnSync('nice', ['-n', '10', 'bash', '-c', `set -euo pipefail\n${block}`], { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: BLOCK_LIMIT_MS });
  const run = { code: r.status, output: `${r.stdout}${r.stderr}`, seconds: (Date.now() - started) / 1000 };
  fs.appendFileSync(path.join(cwd, 'readme-blocks.log'), `$ ${block}\n${run.output}\n(exit ${run.code} after ${run.seconds.toFixed(0)} s)\n\n`);
  return run;
}

/** The run's last lines, after jest's failure reports (its `●` blocks, which come earlier) if any. */
function tail(run: Run): string {
  const lines = run.output.split('\n');
  const failures = lines.flatMap((l, i) => (/^\s*● /.test(l) ? [lines.slice(i, i + 30).join('\n')] : [])).slice(0, 5);
  return `exit ${run.code} after ${run.seconds.toFixed(0)} s:\n${failures.length ? `${failures.join('\n')}\n…\n` : ''}${lines.slice(-40).join('\n')}`;
}

describe('README commands, as printed, in a fresh clone', () => {
  // The clone sits where a checkout does on a development machine or in CI: with the shared/
  // folder (the old tool's reference files, not part of the repository) beside it, when this
  // checkout has one, so the unit tests that read it run in the clone too.
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-'));
  const clone = path.join(parent, 'checkout');
  const shared = path.resolve(ROOT, '..', 'shared');
  beforeAll(() => {
    execFileSync('git', ['clone', '-q', ROOT, clone]);
    if (fs.existsSync(shared)) fs.symlinkSync(shared, path.join(parent, 'shared'));
  });
  // half a gigabyte with its node_modules; a failing block's output is in the test's message
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  test('Quickstart: install, synthesize the example, run the unit tests', () => {
    const blocks = shellBlocks('Quickstart');
    expect(blocks).toHaveLength(1);
    const run = runBlock(blocks[0], clone);
    if (run.code !== 0) throw new Error(`the Quickstart block failed, ${tail(run)}`);
    for (const stack of ['example-management', 'example-demo']) expect(fs.existsSync(path.join(clone, 'cdktf.out', 'stacks', stack, 'cdk.tf.json'))).toBe(true);
    expect(run.output).toMatch(/Tests: +(\d+ skipped, )?\d+ passed, \d+ total/);
    expect(run.output).not.toMatch(/Tests: .*failed/);
  }, BLOCK_LIMIT_MS + 60_000);

  const walk = cloud.ok || REQUIRED ? test : test.skip;
  if (!cloud.ok && !REQUIRED) console.warn(`README local walk skipped: the local cloud is not running (${cloud.why}); set LOCAL_CLOUD_REQUIRED=1 to make this a failure.`);
  walk('Try it without a cloud: deploy the management stack to the local cloud, list the VM, destroy it', () => {
    const blocks = shellBlocks('Try it without a cloud');
    expect(blocks).toHaveLength(1);
    const run = runBlock(blocks[0], clone);
    if (run.code !== 0) throw new Error(`the local walk failed, ${tail(run)}`);
    // the server list between deploy and destroy shows the management VM, ACTIVE
    expect(run.output).toMatch(/capi-local-mgmt\s*\|\s*ACTIVE/);
    const after = spawnSync('openstack', ['--os-cloud', 'local-e2e', 'server', 'list', '-f', 'value', '-c', 'Name'], { env: { ...process.env, OS_CLIENT_CONFIG_FILE: LOCAL_CLOUDS_YAML }, encoding: 'utf8' });
    expect(after.status).toBe(0);
    expect(after.stdout).not.toContain('capi-local-mgmt');
  }, BLOCK_LIMIT_MS + 60_000);
});
