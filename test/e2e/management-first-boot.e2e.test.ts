/**
 * Day 2 on the REAL loopback OpenStack: the management VM holds every cluster's Cluster API state,
 * so a newer image of the same name, or a change of versions, proxy or registry mirrors, must leave
 * the server and its boot volume alone. Deploys the management stack (own prefix), uploads a newer
 * image of the management image's name, changes those settings, and reads the plan JSON: neither
 * the server nor the boot volume is replaced; the plan warns, setting by setting, that they apply
 * to a new VM only; a deploy keeps the same server and volume ids. `management replace` prints its
 * plan and replaces them deliberately; with another change pending it refuses and changes nothing.
 * Destroy leaves the project listing as it was.
 *
 * Skipped (with a message) when the local cloud is not running, unless LOCAL_CLOUD_REQUIRED=1.
 * Holds the shared e2e lock.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { expectSuccess } from './helpers/management-cloud-checks';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { withToken } from './support/keystone';
import { AppDir, buildAppOnce, CACHE_DIR, cdktf, LOCAL_CLOUDS_YAML, makeAppDir, REPO, runWithToolchain, stateResourceCount, tail, writeLocalEnvironment } from './support/management-cloud';
import { LOCAL_KUBECONFIG } from './support/lane-paths';
import { diffListings, listProjectResources, ListingEntry, OpenStackApi, readCloudEntry } from './support/openstack-api';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const CLOUD = 'local-e2e';
const PREFIX = 'e2eboot';
const STACK = 'local-management';
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'management-first-boot');
const available = fs.existsSync(LOCAL_CLOUDS_YAML) && spawnSync(path.join(REPO, 'scripts', 'local-cloud', 'status'), { timeout: 30_000 }).status === 0;
if (!available && !REQUIRED) console.warn('management first-boot e2e skipped: the local cloud is not running (scripts/local-cloud/start); LOCAL_CLOUD_REQUIRED=1 makes this a failure');
const suite = available || REQUIRED ? describe : describe.skip;
/** The replace step reaches a management API (the local kube-apiserver, holding no clusters here) and runs clusterctl. */
const replaceTools = (() => {
  const clusterctl = spawnSync('bash', ['-c', '. scripts/local-capi/lib.sh && controller_bin clusterctl'], { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  if (!fs.existsSync(clusterctl)) return { ok: false, clusterctl, why: 'clusterctl is not built (scripts/local-capi/build clusterctl)' };
  if (spawnSync(path.join(REPO, 'scripts', 'local-kube', 'status'), { timeout: 30_000 }).status !== 0) return { ok: false, clusterctl, why: 'the local kube-apiserver is not running (scripts/local-kube/start)' };
  return { ok: true, clusterctl, why: '' };
})();

const BASE: ReadonlyArray<readonly [readonly string[], unknown]> = [
  [['prefix'], PREFIX],
  [['management', 'waitForReady'], false],
];
/** Settings that reach only a new VM: an older CAPO, a proxy, a registry mirror. */
const CHANGED: ReadonlyArray<readonly [readonly string[], unknown]> = [
  ...BASE,
  [['versions', 'capo'], 'v0.14.6'],
  [['proxy', 'httpProxy'], 'http://proxy.e2e.example:3128'],
  [['registryMirrors'], [{ registry: 'docker.io', endpoints: ['https://mirror.e2e.example'] }]],
];

suite('the management VM is not replaced by a newer image or changed first-boot settings (local OpenStack)', () => {
  let lock: E2eLock | undefined;
  let app: AppDir;
  let api: OpenStackApi;
  let before: ListingEntry[] = [];
  let imageName: string;
  let newerImageId: string | undefined;
  let deployed = false;
  const ids: Record<string, string> = {};
  const run = (args: string[], logName: string) => cdktf(args, { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(app.dir, 'logs'), timeoutSeconds: 900 });
  const terraform = (args: string[], logName: string) => runWithToolchain(['terraform', `-chdir=${app.stackDir}`, ...args], { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(app.dir, 'logs') });
  const needDeploy = () => {
    if (!deployed) throw new Error('nothing deployed (the first test failed)');
  };
  /** `capi-openstack management replace local` against the local kube-apiserver (it holds no clusters here). */
  const replace = (logName: string) => {
    if (!replaceTools.ok) throw new Error(replaceTools.why);
    return runWithToolchain(
      ['node', path.join(REPO, 'dist', 'bin', 'capi-openstack.js'), 'management', 'replace', 'local', '--kubeconfig', LOCAL_KUBECONFIG, '--context', 'local-kube', '--clusterctl', replaceTools.clusterctl],
      { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(app.dir, 'logs'), timeoutSeconds: 900, env: { CAPI_OPENSTACK_BACKUP_KEY: 'e2e-first-boot-backup-key-0123456789' } },
    );
  };
  /** Ids of the management server and its boot volume, read from the state. */
  const stateIds = () => {
    const state = JSON.parse(fs.readFileSync(app.stateFile, 'utf8'));
    const idOf = (type: string) => state.resources.find((r: any) => r.mode === 'managed' && r.type === type).instances[0].attributes.id as string;
    return { server: idOf('openstack_compute_instance_v2'), volume: idOf('openstack_blockstorage_volume_v3') };
  };

  beforeAll(async () => {
    if (!available) throw new Error('LOCAL_CLOUD_REQUIRED=1 but the local cloud is not running: run scripts/local-cloud/start first');
    lock = await acquireE2eLock({ holder: 'management first-boot e2e' });
    buildAppOnce();
    api = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, CLOUD));
    fs.rmSync(SUITE_DIR, { recursive: true, force: true });
    app = makeAppDir(SUITE_DIR);
    imageName = parse(writeLocalEnvironment(app, BASE)).management.image;
    before = await listProjectResources(api);
  }, 20 * 60_000);

  afterAll(async () => {
    try {
      if (newerImageId) await withToken(apiToken(api), 'DELETE', `${api.endpoint('image')}/v2/images/${newerImageId}`);
      if (app && stateResourceCount(app.stateFile) > 0) {
        const result = await run(['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-leftovers');
        if (result.code !== 0) console.warn(`management first-boot e2e: destroy failed: ${tail(result, 20)}`);
      }
    } finally {
      await lock?.release();
    }
  }, 20 * 60_000);

  test('deploy the management stack', async () => {
    const result = await run(['deploy', STACK, '--auto-approve'], 'deploy');
    deployed = stateResourceCount(app.stateFile) > 0;
    expectSuccess(result, 'cdktf deploy');
    Object.assign(ids, stateIds());
  });

  test('a newer image of the same name and changed versions, proxy and mirrors: the plan replaces neither the server nor its boot volume, and says why', async () => {
    needDeploy();
    await uploadImage(api, imageName, (id) => (newerImageId = id));
    writeLocalEnvironment(app, CHANGED);
    const plan = await run(['plan', STACK], 'plan-changed');
    expectSuccess(plan, 'cdktf plan with the changed settings');
    const shown = await terraform(['show', '-json', 'plan'], 'show-plan-changed');
    expectSuccess(shown, 'terraform show -json plan');
    const changes = (JSON.parse(shown.output.slice(shown.output.indexOf('{'))).resource_changes as any[]).filter((c) => c.mode === 'managed');
    const actionsOf = (type: string) => changes.filter((c) => c.type === type).map((c) => c.change.actions.join('+'));
    expect(actionsOf('openstack_compute_instance_v2')).toEqual(['no-op']);
    expect(actionsOf('openstack_blockstorage_volume_v3')).toEqual(['no-op']);
    expect(changes.filter((c) => c.change.actions.includes('delete')).map((c) => c.address)).toEqual([]);
    // the plan tells, setting by setting, that the change waits for a new VM
    const output = plan.output.replace(/\s+/g, ' ');
    expect(output).toContain(`A newer image named "${imageName}" exists, but it applies to a new management VM only`);
    for (const field of ['proxy', 'registryMirrors']) expect(output).toContain(`${field} changed, but it applies to a new management VM only`);
    expect(output).toContain('versions changed, but without the readiness gate (management.waitForReady: false) the stack does not reach the management API to upgrade the controllers: run capi-openstack management upgrade local');
    expect(output).not.toContain('management.image changed');
  });

  test('deploying the changed environment keeps the same server and boot volume', async () => {
    needDeploy();
    const result = await run(['deploy', STACK, '--auto-approve'], 'deploy-changed');
    expectSuccess(result, 'cdktf deploy with the changed settings');
    expect(result.output).toMatch(/0 destroyed|No changes/);
    expect(stateIds()).toEqual(ids);
    const server = (await api.compute(`/servers/${ids.server}`)).server;
    expect(server.status).toBe('ACTIVE');
  });

  test('management replace: a deliberate new VM and boot volume, from the newest image and the current settings, after a printed plan; the next plan is clean', async () => {
    needDeploy();
    const r = await replace('replace');
    expectSuccess(r, 'capi-openstack management replace');
    expect(r.output).toMatch(/# openstack_compute_instance_v2\.Server_Instance_\w+ will be replaced, as requested/);
    expect(r.output).toContain('replaced the management VM of local (it held no clusters)');
    const replaced = stateIds();
    expect(replaced.server).not.toBe(ids.server);
    expect(replaced.volume).not.toBe(ids.volume);
    const volume = await api.get('volumev3', `/volumes/${replaced.volume}`);
    expect(volume.volume.volume_image_metadata.image_id).toBe(newerImageId);
    const plan = await run(['plan', STACK], 'plan-after-replace');
    expectSuccess(plan, 'cdktf plan after the replacement');
    expect(plan.output).toContain('No changes.');
    expect(plan.output).not.toContain('Check block assertion failed');
  });

  test('management replace refuses a plan that carries another pending change (a new SSH rule), after printing it: nothing changed, no backup taken', async () => {
    needDeploy();
    const kept = stateIds();
    const backups = path.join(app.dir, 'backups', 'local');
    const backupsBefore = fs.readdirSync(backups);
    writeLocalEnvironment(app, [...CHANGED, [['management', 'sshAllowedCidrs'], ['203.0.113.0/24']]]);
    expectSuccess(await run(['synth'], 'synth-pending-change'), 'cdktf synth with a pending change');
    const r = await replace('replace-refused');
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/# openstack_compute_instance_v2\.Server_Instance_\w+ will be replaced, as requested/);
    expect(r.output).toMatch(/# openstack_networking_secgroup_rule_v2\.ManagementSecurityGroup_ingress-IPv4-tcp-22-203_0_113_0_24_\w+ will be created/);
    expect(r.output.replace(/\s+/g, ' ')).toMatch(
      /refused: the plan above changes more than the management VM, its boot volume and the records replaced with them: openstack_networking_secgroup_rule_v2\.ManagementSecurityGroup_ingress-IPv4-tcp-22-203_0_113_0_24_\w+ \(create\)\. Deploy or undo those changes first/,
    );
    expect(stateIds()).toEqual(kept);
    expect(fs.readdirSync(backups)).toEqual(backupsBefore);
  });

  test('destroy leaves the project as it was (the uploaded image removed)', async () => {
    needDeploy();
    const result = await run(['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy');
    expectSuccess(result, 'cdktf destroy');
    deployed = false;
    const res = await withToken(apiToken(api), 'DELETE', `${api.endpoint('image')}/v2/images/${newerImageId}`);
    expect(res.status).toBe(204);
    newerImageId = undefined;
    expect(diffListings(before, await listProjectResources(api))).toEqual({ added: [], removed: [] });
  });
});

function apiToken(api: OpenStackApi): string {
  return (api as unknown as { token: string }).token;
}

/** Uploads a small private image of that name (newer than every other image of the name); `created` gets its id first, for the cleanup. */
async function uploadImage(api: OpenStackApi, name: string, created: (id: string) => void): Promise<void> {
  const glance = api.endpoint('image');
  const res = await withToken(apiToken(api), 'POST', `${glance}/v2/images`, { body: { name, disk_format: 'raw', container_format: 'bare', visibility: 'private' } });
  if (res.status !== 201) throw new Error(`creating image ${name}: HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  created(res.body.id);
  const put = await withToken(apiToken(api), 'PUT', `${glance}/v2/images/${res.body.id}/file`, { body: 'a newer image of the same name', contentType: 'application/octet-stream' });
  if (put.status !== 204) throw new Error(`uploading image ${name}: HTTP ${put.status}: ${JSON.stringify(put.body).slice(0, 300)}`);
}
