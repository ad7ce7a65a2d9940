/**
 * A team sharing one environment: the state of the management stack lives in the local cloud's
 * object store (Swift with its S3 API, Terraform's S3 backend with its lock file), reached with the
 * project's EC2 credentials. Two checkouts of the project (two operators, or two CI runners):
 * local state is migrated with the documented command and read from the other checkout; a deploy
 * started while another holds the lock names it and applies nothing; a deploy killed mid-apply leaves a lock that the other
 * checkout runs into, with the stack and the holder named, and that `state unlock` clears; the
 * next deploy converges with nothing duplicated or lost; destroy leaves the project as it was.
 * Then the same environment on a store whose conditional writes are exclusive (the local S3 server,
 * scripts/local-s3): two deploys started at the same instant, exactly one applies.
 *
 * Skipped (with a message) when the local cloud or its object store is not running, unless
 * LOCAL_CLOUD_REQUIRED=1 (then start it with LOCAL_CLOUD_SWIFT=1 scripts/local-cloud/start). Step 5
 * is skipped likewise without scripts/local-s3/start, unless LOCAL_S3_REQUIRED=1.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { probeLocalCloud } from './support/local-cloud-probe';
import { AppDir, buildAppOnce, CACHE_DIR, cdktf, CliResult, LOCAL_CLOUDS_YAML, makeAppDir, REPO, runWithToolchain, SERVER_CREATING, stateResourceCount, tail, writeLocalEnvironment } from './support/management-cloud';
import { S3Client } from '../../lib/runtime/state/s3-client';
import { diffListings, entriesNamed, formatDiff, listProjectResources, ListingEntry, OpenStackApi, readCloudEntry } from './support/openstack-api';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const PREFIX = 'e2eteam';
const NAME = `${PREFIX}-local`;
const STACK = 'local-management';
const BUCKET = 'capi-e2e-team';
const KEY = `${PREFIX}/${STACK}.tfstate`;
const S3_ENDPOINT = 'http://127.0.0.1:8080';
/** Terraform's lock message names the state object: bucket, environment prefix and stack. */
const lockPath = (bucket: string) => new RegExp(`Path:\\s+${bucket}/${PREFIX}/${STACK}\\.tfstate`);
const LOCK_PATH = lockPath(BUCKET);
/** The key pair in `export AWS_...=` lines (`state credentials`, the local S3 server's credentials.env). */
const exportedS3Keys = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(/^export (AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'team-state');
/** The local S3 server (versitygw): exclusive conditional writes. */
const EXCLUSIVE_STORE = { endpoint: 'http://127.0.0.1:9410', bucket: 'capi-e2e-team-exclusive', region: 'RegionOne' };
const EXCLUSIVE_CREDENTIALS = path.join(process.env.LOCAL_S3_STATE || path.join(CACHE_DIR, 'local-s3'), 'credentials.env');
const exclusiveStoreUp = () => spawnSync(path.join(REPO, 'scripts', 'local-s3', 'status'), [], { encoding: 'utf8' }).status === 0;

function objectStoreUp(): boolean {
  return spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '5', `${S3_ENDPOINT}/healthcheck`], { encoding: 'utf8' }).stdout === '200';
}
const cloud = probeLocalCloud(LOCAL_CLOUDS_YAML, 'local-e2e');
const availability = cloud.ok && !objectStoreUp() ? { ok: false, why: `no object store answers on ${S3_ENDPOINT} (LOCAL_CLOUD_SWIFT=1 scripts/local-cloud/start)` } : cloud;
if (!availability.ok && !REQUIRED) console.warn(`team state e2e skipped: ${availability.why}. LOCAL_CLOUD_REQUIRED=1 makes this a failure.`);
const suite = availability.ok || REQUIRED ? describe : describe.skip;

/** This suite's resources in a listing (ids differ between runs). */
const ours = (listing: readonly ListingEntry[]) => entriesNamed(listing, NAME);

const ok = (r: CliResult) => ({ code: r.code, tail: r.code === 0 ? '' : tail(r) });

suite('a team sharing the state of one environment in the object store', () => {
  let lock: E2eLock | undefined;
  let api: OpenStackApi;
  let alice: AppDir;
  let bob: AppDir;
  let s3Env: Record<string, string> = {};
  let before: ListingEntry[] = [];
  const run = (app: AppDir, args: string[], logName: string, interrupt?: { when: RegExp; signal: NodeJS.Signals; delayMs?: number }, env: Record<string, string> = {}) =>
    cdktf(args, { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(SUITE_DIR, 'logs'), env: { ...s3Env, ...pluginCacheOf(app), ...env }, interrupt });
  /**
   * Each member's own Terraform plugin cache, as on two machines: Terraform's cache is not safe for
   * two inits at once (step 5 starts two deploys at the same instant; one failed with "failed to
   * verify checksum … lstat <plugin-cache>/…: no such file or directory" while the other re-linked it).
   */
  const pluginCacheOf = (app: AppDir): Record<string, string> => {
    const dir = path.join(app.dir, '.terraform-plugin-cache');
    fs.mkdirSync(dir, { recursive: true });
    return { TF_PLUGIN_CACHE_DIR: dir };
  };
  /**
   * A deploy that replaces the management VM on purpose (terraform apply -replace, as `management
   * replace` does; cdktf deploy runs terraform apply, which takes TF_CLI_ARGS_apply): a plan never
   * replaces it, and these steps need an apply that creates a server and holds the lock for seconds.
   */
  const replacingVm = (app: AppDir): Record<string, string> => {
    const json = JSON.parse(fs.readFileSync(path.join(app.stackDir, 'cdk.tf.json'), 'utf8'));
    return { TF_CLI_ARGS_apply: `-replace=openstack_compute_instance_v2.${Object.keys(json.resource.openstack_compute_instance_v2)[0]}` };
  };
  const cli = (app: AppDir, args: string[], logName: string) =>
    runWithToolchain(['node', path.join(REPO, 'dist', 'bin', 'capi-openstack.js'), ...args], { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(SUITE_DIR, 'logs'), env: s3Env });
  let store: Record<string, string> = { endpoint: S3_ENDPOINT, bucket: BUCKET, region: 'RegionOne' };
  /** The two checkouts sharing `store` (step 5 has two fresh ones: a checkout keeps its backend). */
  let team = () => [alice, bob];
  /** Both checkouts on the shared store; `metadata` of the VM marks what each change applies. */
  const shared = (metadata: Record<string, string>, kindClusterName = 'capi-mgmt') => {
    for (const app of team()) {
      writeLocalEnvironment(app, [
        [['prefix'], PREFIX],
        [['management', 'metadata'], metadata],
        [['management', 'kindClusterName'], kindClusterName],
        [['stateBackend'], { ...store, keyPrefix: PREFIX }],
      ]);
    }
  };
  /** Destroys what the store's state still holds (a run that died before its destroy). */
  const destroyLeftovers = async (app: AppDir, logPrefix: string) => {
    if (/: state /.test((await cli(app, ['state', 'status', 'local'], `${logPrefix}status-before`)).output)) {
      expect(ok(await run(app, ['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], `${logPrefix}destroy-leftovers`))).toEqual({ code: 0, tail: '' });
    }
  };
  const servers = async () => ((await api.get('compute', '/servers/detail')).servers as { name: string; metadata: Record<string, string> }[]).filter((s) => s.name.startsWith(NAME));

  beforeAll(async () => {
    if (!availability.ok) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the team state e2e cannot run (${availability.why})`);
    lock = await acquireE2eLock({ holder: 'team state e2e' });
    buildAppOnce();
    api = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-e2e'));
    fs.rmSync(SUITE_DIR, { recursive: true, force: true });
    alice = makeAppDir(path.join(SUITE_DIR, 'alice'));
    bob = makeAppDir(path.join(SUITE_DIR, 'bob'));
    writeLocalEnvironment(alice, [[['prefix'], PREFIX], [['management', 'metadata'], { change: 'local' }]]);
    // the EC2 credentials of the project, through the documented command
    const creds = await cli(alice, ['state', 'credentials', 'local'], 'state-credentials');
    expect(ok(creds)).toEqual({ code: 0, tail: '' });
    s3Env = exportedS3Keys(creds.output);
    expect(Object.keys(s3Env).sort()).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
    // a run that died before its destroy left its resources in the store's state: clear them first
    shared({ change: 'cleanup' });
    await destroyLeftovers(bob, '');
    before = await listProjectResources(api);
    expect(ours(before)).toEqual([]);
    writeLocalEnvironment(alice, [[['prefix'], PREFIX], [['management', 'metadata'], { change: 'local' }]]);
  }, 20 * 60 * 1000);

  afterAll(async () => {
    try {
      const last = team()[1];
      if (last && s3Env.AWS_ACCESS_KEY_ID && ours(await listProjectResources(api)).length > 0) await run(last, ['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-after');
    } finally {
      await lock?.release();
    }
  }, 15 * 60 * 1000);

  test('1. local state moves into the store with one command; the other checkout plans from it with no changes', async () => {
    expect(ok(await run(alice, ['deploy', STACK, '--auto-approve'], 'alice-deploy-local'))).toEqual({ code: 0, tail: '' });
    const resources = stateResourceCount(alice.stateFile);
    expect(resources).toBeGreaterThan(5);
    shared({ change: 'local' });
    expect(ok(await run(alice, ['synth'], 'alice-synth'))).toEqual({ code: 0, tail: '' });
    const migrated = await cli(alice, ['state', 'migrate', 'local'], 'state-migrate');
    expect(ok(migrated)).toEqual({ code: 0, tail: '' });
    expect(migrated.output).toContain(`${STACK}: state moved to ${BUCKET}/${KEY}`);
    expect(fs.existsSync(alice.stateFile)).toBe(false);
    expect(fs.existsSync(`${alice.stateFile}.migrated`)).toBe(true);
    // bob has no state file of his own: the plan reads the store
    const plan = await run(bob, ['plan', STACK], 'bob-plan');
    expect(ok(plan)).toEqual({ code: 0, tail: '' });
    expect(plan.output).toContain('No changes. Your infrastructure matches the configuration.');
    expect(fs.existsSync(bob.stateFile)).toBe(false);
  }, 15 * 60 * 1000);

  test('1b. the lock probe measures the store\'s conditional writes and says whether they make an exclusive lock', async () => {
    const r = await cli(alice, ['state', 'probe', 'local', '--rounds', '30'], 'probe');
    const m = /30 rounds of 2 simultaneous writers: one winner in (\d+), more than one in (\d+), none in (\d+)/.exec(r.output);
    expect(m).not.toBeNull();
    const [single, multiple, none] = m!.slice(1).map(Number);
    console.log(`team state e2e: lock probe of Swift: one winner in ${single}, two in ${multiple} of 30 rounds`);
    expect({ sum: single + multiple + none, none }).toEqual({ sum: 30, none: 0 });
    expect(r.code).toBe(multiple > 0 ? 4 : 0);
    if (multiple > 0) expect(r.output).toContain('NOT EXCLUSIVE');
  }, 5 * 60 * 1000);

  // Swift's S3 API checks If-None-Match before the write, not atomically: two runs that take the
  // lock in the same few milliseconds can both get it (docs/concepts.md, "State"). So the second
  // deploy starts once the first holds the lock, which is what the lock can promise on Swift. The
  // first run replaces the server on purpose, so it holds the lock for several seconds.
  test('2. a deploy started while another holds the lock: the change is applied once, the loser names the lock, then converges', async () => {
    shared({ change: 'together' }, 'capi-mgmt-a');
    const store = new S3Client({ endpoint: S3_ENDPOINT, bucket: BUCKET, region: 'RegionOne' }, { accessKeyId: s3Env.AWS_ACCESS_KEY_ID, secretAccessKey: s3Env.AWS_SECRET_ACCESS_KEY });
    const first = run(alice, ['deploy', STACK, '--auto-approve'], 'alice-together', undefined, replacingVm(alice));
    let held = false;
    // bounded by time, not by a count of polls: on a loaded machine the first run takes longer to get there
    for (const deadline = Date.now() + 180_000; Date.now() < deadline && !held; ) {
      held = (await store.head(`${KEY}.tflock`)) !== undefined;
      if (!held) await new Promise((r) => setTimeout(r, 50));
    }
    expect(held).toBe(true);
    const [a, b] = await Promise.all([first, run(bob, ['deploy', STACK, '--auto-approve'], 'bob-together')]);
    console.log(`team state e2e: deploys exited ${a.code} (alice, holding the lock, ${a.seconds.toFixed(0)} s) and ${b.code} (bob, started while it was held, ${b.seconds.toFixed(0)} s)`);
    expect(ok(a)).toEqual({ code: 0, tail: '' });
    expect(a.output).toMatch(/Apply complete! Resources: [1-9]\d* added, \d+ changed, [1-9]\d* destroyed/);
    expect(b.code).not.toBe(0);
    expect(b.output).toContain('Error acquiring the state lock');
    expect(b.output).toMatch(LOCK_PATH);
    expect(b.output).toMatch(/Who:\s+\S+@\S+/);
    expect(b.output).not.toMatch(/Apply complete!|Modifying\.\.\./);
    const again = await run(bob, ['deploy', STACK, '--auto-approve'], 'after-lock');
    expect(ok(again)).toEqual({ code: 0, tail: '' });
    expect(again.output).not.toMatch(/Apply complete! Resources: \d+ added, [1-9]/);
    const vms = await servers();
    expect(vms.map((s) => [s.name, s.metadata.change])).toEqual([[`${NAME}-mgmt`, 'together']]);
  }, 20 * 60 * 1000);

  test('3. a deploy killed mid-apply leaves its lock: the next one names stack and holder; state unlock clears it; the rerun converges', async () => {
    // the VM is replaced on purpose, and the run dies while the new one is created
    shared({ change: 'killed' }, 'capi-mgmt-b');
    const killed = await run(alice, ['deploy', STACK, '--auto-approve'], 'alice-killed', { when: SERVER_CREATING, signal: 'SIGKILL', delayMs: 1500 }, replacingVm(alice));
    expect(killed.output).toContain('[e2e] SIGKILL to the process group');
    expect(killed.code).not.toBe(0);

    const blocked = await run(bob, ['deploy', STACK, '--auto-approve'], 'bob-blocked');
    expect(blocked.code).not.toBe(0);
    expect(blocked.output).toContain('Error acquiring the state lock');
    expect(blocked.output).toMatch(LOCK_PATH);
    expect(blocked.output).toMatch(/Operation: OperationTypeApply/);
    expect(blocked.output).toMatch(/Who:\s+\S+@\S+/);

    const status = await cli(bob, ['state', 'status', 'local'], 'status-locked');
    expect(status.code).toBe(3);
    expect(status.output).toMatch(new RegExp(`${STACK}: state ${BUCKET}/${KEY} .*LOCKED by \\S+@\\S+ \\(apply`));
    const shown = await cli(bob, ['state', 'unlock', 'local', STACK], 'unlock-show');
    expect(shown.code).toBe(3);
    const id = /--id (\S+)/.exec(shown.output)?.[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok(await cli(bob, ['state', 'unlock', 'local', STACK, '--id', 'not-the-id'], 'unlock-wrong')).code).toBe(1);
    const unlocked = await cli(bob, ['state', 'unlock', 'local', STACK, '--id', id!], 'unlock');
    expect(ok(unlocked)).toEqual({ code: 0, tail: '' });
    expect((await cli(bob, ['state', 'status', 'local'], 'status-unlocked')).output).toContain(`${STACK}: state ${BUCKET}/${KEY}`);

    // what the killed run created but never recorded goes first (documented recovery), then the rerun converges
    const orphans = await cli(bob, ['orphans', 'local'], 'orphans');
    console.log(`team state e2e: orphans after the kill:\n${orphans.output}`);
    if (orphans.code === 3) expect(ok(await cli(bob, ['orphans', 'local', '--delete'], 'orphans-delete'))).toEqual({ code: 0, tail: '' });
    else expect(orphans.output).toContain('no orphans');
    expect(ok(await run(bob, ['deploy', STACK, '--auto-approve'], 'bob-converge'))).toEqual({ code: 0, tail: '' });
    const plan = await run(alice, ['plan', STACK], 'alice-replan');
    expect(plan.output).toContain('No changes. Your infrastructure matches the configuration.');
    const vms = await servers();
    expect(vms.map((s) => [s.name, s.metadata.change])).toEqual([[`${NAME}-mgmt`, 'killed']]);
    const names = ours(await listProjectResources(api));
    expect(names.filter((e, i) => names.indexOf(e) !== i)).toEqual([]);
  }, 20 * 60 * 1000);

  test('4. destroy from either checkout leaves the project as it was and no lock behind', async () => {
    expect(ok(await run(bob, ['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'bob-destroy'))).toEqual({ code: 0, tail: '' });
    const diff = diffListings(before, await listProjectResources(api));
    expect({ diff: formatDiff(diff), equal: diff.added.length + diff.removed.length === 0 }).toEqual({ diff: formatDiff({ added: [], removed: [] }), equal: true });
    const status = await cli(alice, ['state', 'status', 'local'], 'status-end');
    expect(ok(status)).toEqual({ code: 0, tail: '' });
    expect(status.output).toContain('not locked');
  }, 15 * 60 * 1000);

  test('5. on a store with exclusive conditional writes, two deploys started at the same instant: one applies, the other names the lock', async () => {
    if (!exclusiveStoreUp()) {
      if (process.env.LOCAL_S3_REQUIRED === '1') throw new Error('LOCAL_S3_REQUIRED=1 but the local S3 server does not run (scripts/local-s3/start)');
      console.warn('team state e2e, step 5 skipped: the local S3 server does not run (scripts/local-s3/start)');
      return;
    }
    store = EXCLUSIVE_STORE;
    const [carol, dave] = ['carol', 'dave'].map((n) => makeAppDir(path.join(SUITE_DIR, n)));
    team = () => [carol, dave];
    s3Env = exportedS3Keys(fs.readFileSync(EXCLUSIVE_CREDENTIALS, 'utf8'));
    shared({ change: 'exclusive' });
    // an earlier run that died here left state behind: destroy it first
    await destroyLeftovers(dave, 'x-');
    expect(ok(await cli(carol, ['state', 'migrate', 'local'], 'x-create-bucket'))).toEqual({ code: 0, tail: '' });
    const probe = await cli(carol, ['state', 'probe', 'local', '--rounds', '30'], 'x-probe');
    expect(ok(probe)).toEqual({ code: 0, tail: '' });
    expect(probe.output).toContain('30 rounds of 2 simultaneous writers: one winner in 30, more than one in 0, none in 0');
    expect(ok(await run(carol, ['deploy', STACK, '--auto-approve'], 'x-carol-deploy'))).toEqual({ code: 0, tail: '' });

    // both replace the VM on purpose, so the winner holds the lock for seconds
    shared({ change: 'same-instant' }, 'capi-mgmt-x');
    const results = await Promise.all([run(carol, ['deploy', STACK, '--auto-approve'], 'x-carol-same-instant', undefined, replacingVm(carol)), run(dave, ['deploy', STACK, '--auto-approve'], 'x-dave-same-instant', undefined, replacingVm(carol))]);
    console.log(`team state e2e: two deploys started at the same instant on the exclusive store exited ${results.map((r) => `${r.code} (${r.seconds.toFixed(0)} s)`).join(' and ')}`);
    const winners = results.filter((r) => r.code === 0);
    const losers = results.filter((r) => r.code !== 0);
    expect({ winners: winners.length, losers: losers.length }).toEqual({ winners: 1, losers: 1 });
    expect(winners[0].output).toMatch(/Apply complete! Resources: [1-9]\d* added, \d+ changed, [1-9]\d* destroyed/);
    expect(losers[0].output).toContain('Error acquiring the state lock');
    expect(losers[0].output).toMatch(lockPath(EXCLUSIVE_STORE.bucket));
    expect(losers[0].output).toMatch(/Who:\s+\S+@\S+/);
    expect(losers[0].output).not.toMatch(/Apply complete!|Modifying\.\.\.|Creating\.\.\./);
    const loser = results[0] === losers[0] ? carol : dave;
    const again = await run(loser, ['deploy', STACK, '--auto-approve'], 'x-loser-again');
    expect(ok(again)).toEqual({ code: 0, tail: '' });
    expect(again.output).not.toMatch(/Apply complete! Resources: \d+ added, [1-9]/);
    expect((await servers()).map((v) => [v.name, v.metadata.change])).toEqual([[`${NAME}-mgmt`, 'same-instant']]);

    expect(ok(await run(dave, ['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'x-destroy'))).toEqual({ code: 0, tail: '' });
    const diff = diffListings(before, await listProjectResources(api));
    expect(formatDiff(diff)).toEqual(formatDiff({ added: [], removed: [] }));
  }, 20 * 60 * 1000);
});
