/**
 * A management deploy killed in the middle of its apply (SIGKILL to the whole process group while
 * the server is being created: a runner that dies). Terraform cannot record what was in flight, so
 * the documented recovery runs: `capi-openstack orphans <env>` lists what exists but is in no state,
 * `--delete` removes it; then the next deploy converges with nothing created twice, a second plan
 * is empty, and destroy leaves the project listing as it was before. Real cdktf CLI, real
 * Terraform, the loopback OpenStack of scripts/local-cloud.
 *
 * Skipped (with a message) when the local cloud is not running, unless LOCAL_CLOUD_REQUIRED=1.
 */
import * as fs from 'fs';
import * as path from 'path';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { probeLocalCloud } from './support/local-cloud-probe';
import { AppDir, buildAppOnce, CACHE_DIR, cdktf, LOCAL_CLOUDS_YAML, makeAppDir, REPO, runWithToolchain, SERVER_CREATING, stateResourceCount, tail, writeLocalEnvironment } from './support/management-cloud';
import { diffListings, entriesNamed, formatDiff, listProjectResources, ListingEntry, OpenStackApi, readCloudEntry } from './support/openstack-api';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const PREFIX = 'e2eintr';
const NAME = `${PREFIX}-local`;
const STACK = 'local-management';
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'interrupted-deploy');

const availability = probeLocalCloud(LOCAL_CLOUDS_YAML, 'local-e2e');
if (!availability.ok && !REQUIRED) console.warn(`interrupted deploy e2e skipped: ${availability.why}. Start scripts/local-cloud/start; LOCAL_CLOUD_REQUIRED=1 makes this a failure.`);
const suite = availability.ok || REQUIRED ? describe : describe.skip;

/** This suite's resources in a listing (ids differ between runs). */
const ours = (listing: readonly ListingEntry[]) => entriesNamed(listing, NAME);

suite('a management deploy interrupted mid-apply', () => {
  let lock: E2eLock | undefined;
  let app: AppDir;
  let api: OpenStackApi;
  let before: ListingEntry[] = [];
  const run = (args: string[], logName: string, interrupt?: { when: RegExp; signal: NodeJS.Signals; delayMs?: number }) =>
    cdktf(args, { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(app.dir, 'logs'), interrupt });
  const destroy = () => run(['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy');
  const orphans = (...extra: string[]) =>
    runWithToolchain(['node', path.join(REPO, 'dist', 'bin', 'capi-openstack.js'), 'orphans', 'local', ...extra], { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName: `orphans${extra.join('')}`, logDir: path.join(app.dir, 'logs') });

  beforeAll(async () => {
    if (!availability.ok) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the local cloud is not usable (${availability.why})`);
    lock = await acquireE2eLock({ holder: 'interrupted deploy e2e' });
    buildAppOnce();
    api = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-e2e'));
    app = makeAppDir(SUITE_DIR);
    writeLocalEnvironment(app, [
      [['prefix'], PREFIX],
      [['management', 'waitForReady'], false],
    ]);
    // a run that died before its destroy left its state here: clear it first
    if (stateResourceCount(app.stateFile) > 0) expect((await destroy()).code).toBe(0);
    before = await listProjectResources(api);
    expect(ours(before)).toEqual([]);
  }, 20 * 60 * 1000);

  afterAll(async () => {
    try {
      if (app && stateResourceCount(app.stateFile) > 0) await destroy();
    } finally {
      await lock?.release();
    }
  }, 15 * 60 * 1000);

  let interruptedCount = 0;
  test('1. SIGKILL while the server is being created; orphans lists what the state misses, --delete removes it', async () => {
    const result = await run(['deploy', STACK, '--auto-approve'], 'deploy-killed', { when: SERVER_CREATING, signal: 'SIGKILL', delayMs: 1500 });
    expect(result.output).toContain('[e2e] SIGKILL to the process group');
    expect(result.code).not.toBe(0);
    expect(result.output).not.toMatch(/Apply complete!/);
    interruptedCount = stateResourceCount(app.stateFile);
    expect(interruptedCount).toBeGreaterThan(0);

    // what exists but is in no state: exactly what orphans reports
    const state = JSON.parse(fs.readFileSync(app.stateFile, 'utf8')) as { resources: { mode: string; instances: { attributes: { id?: string } }[] }[] };
    const ids = new Set(state.resources.filter((r) => r.mode === 'managed').flatMap((r) => r.instances.map((i) => i.attributes.id)));
    const named = (await listProjectResources(api)).filter((e) => /^(network|subnet|router|security-group|server|volume) /.test(e) && e.split(' ').slice(2).join(' ').startsWith(NAME));
    const missing = named.filter((e) => !ids.has(e.split(' ')[1])).map((e) => e.split(' ')[1]);
    const listed = await orphans();
    console.log(`interrupted deploy e2e: ${interruptedCount} resources in the state after the kill; orphans:\n${listed.output}`);
    for (const id of missing) expect(listed.output).toContain(id);
    expect(listed.code).toBe(missing.length > 0 || /orphan /.test(listed.output) ? 3 : 0);
    if (listed.code === 3) {
      const deleted = await orphans('--delete');
      expect({ code: deleted.code, tail: deleted.code === 0 ? '' : tail(deleted) }).toEqual({ code: 0, tail: '' });
      expect((await orphans()).output).toContain('no orphans');
    }
  }, 15 * 60 * 1000);

  test('2. the next deploy converges: nothing created twice, a second plan is empty', async () => {
    expect(interruptedCount).toBeGreaterThan(0);
    const result = await run(['deploy', STACK, '--auto-approve'], 'deploy-after-interrupt');
    expect({ code: result.code, tail: result.code === 0 ? '' : tail(result) }).toEqual({ code: 0, tail: '' });
    expect(result.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    const names = ours(await listProjectResources(api)).filter((e) => !e.startsWith('security-group-rule') && !e.startsWith('port '));
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((e, i) => names.indexOf(e) !== i)).toEqual([]);
    const plan = await run(['plan', STACK], 'replan');
    expect(plan.output).toContain('No changes. Your infrastructure matches the configuration.');
  }, 15 * 60 * 1000);

  test('3. destroy leaves the project listing as it was before', async () => {
    const result = await destroy();
    expect({ code: result.code, tail: result.code === 0 ? '' : tail(result) }).toEqual({ code: 0, tail: '' });
    expect(stateResourceCount(app.stateFile)).toBe(0);
    const diff = diffListings(before, await listProjectResources(api));
    expect({ diff: formatDiff(diff), equal: diff.added.length + diff.removed.length === 0 }).toEqual({ diff: formatDiff({ added: [], removed: [] }), equal: true });
  }, 15 * 60 * 1000);
});
