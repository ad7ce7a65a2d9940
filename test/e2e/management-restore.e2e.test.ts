/**
 * Loss of the management cluster, and its restore from a backup, with the real controllers
 * (scripts/local-capi: CAPI core, kubeadm, CAPO + ORC, CAAPH with their webhooks) against the local
 * kube-apiserver and the local OpenStack. A workload cluster is deployed and running (simulated data
 * plane, see support/simulated-workload.ts); `capi-openstack management backup` writes the
 * encrypted backup with the clusterctl built from the Cluster API module (scripts/local-capi
 * build); then the management cluster is lost: controllers stopped, the local kube-apiserver's
 * data wiped (scripts/local-kube stop --wipe: etcd, certificates). A fresh kube-apiserver with the
 * controllers installed again stands in for the new management VM; `capi-openstack management
 * restore` brings the clusters back.
 *
 * Asserted: after the restore the Cluster is ready again with the same servers, the project
 * listing (every resource by id) equals the one before the loss, the workload stack's re-plan is
 * empty, and a scale-up is reconciled by the controllers of the new management cluster.
 *
 * Simulated: the management VM (the local kube-apiserver and controllers as local processes, as
 * in the control-loop e2e) and the workload cluster's data plane.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { BASE_VARIANT, CLUSTER } from './helpers/control-loop-variant';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { projectListing, ProjectListing } from './support/project-listing';
import { SimulatedWorkloadCluster } from './support/simulated-workload';
import { getObject, kubeClientFromKubeconfig, ok, waitFor } from './support/workload-kube';
import { cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';
import { expectExit, ROOT, tail, toolchainEnv } from './support/workload-process';
import { WorkloadProject } from './support/workload-project';

const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const KUBE_STATE = process.env.LOCAL_KUBE_STATE ?? path.join(CACHE, 'local-kube');
const KUBECONFIG = path.join(KUBE_STATE, 'kubeconfig');
const CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE ?? path.join(process.env.LOCAL_CLOUD_STATE ?? path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const STACK = `local-${CLUSTER}`;
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const KEY = `e2e-backup-key-${process.pid}-${Date.now()}`;
function script(name: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 300_000) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}
const bash = (line: string) => spawnSync('bash', ['-c', line], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const why = [
  script('local-kube/status', [], process.env, 60_000).status !== 0 && 'the local kube-apiserver is not running (scripts/local-kube/start)',
  script('local-cloud/status', [], process.env, 60_000).status !== 0 && 'the local OpenStack is not running (LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start)',
  script('local-capi/build', ['--check'], process.env, 60_000).status !== 0 && 'the Cluster API controllers and clusterctl are not built (scripts/local-capi/build)',
].filter(Boolean) as string[];
if (why.length > 0 && !REQUIRED) console.warn(`management restore e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length === 0 || REQUIRED ? describe : describe.skip;

const timer = phaseTimer('management restore e2e');
const { timings, log, timed } = timer;
const findings: string[] = [];

suite('the management cluster is lost and restored from its backup: every cluster resumes, nothing in OpenStack changes', () => {
  let lock: E2eLock | undefined;
  let project: WorkloadProject;
  let client: KubeClient;
  let openstack: OpenStackSession;
  let namespace: string;
  let sim: SimulatedWorkloadCluster | undefined;
  let runId: string;
  let backupDir: string;
  let deployed = false;
  let beforeLoss: ProjectListing;
  let beforeDeploy: ProjectListing;
  let serversBefore: string[] = [];
  const clusterctl = bash('. scripts/local-capi/lib.sh && controller_bin clusterctl');
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(ROOT, 'dist', 'bin', 'capi-openstack.js'), 'management', ...args, 'local', '--dir', project.envDir, '--backup-dir', backupDir, '--clusterctl', clusterctl], {
      cwd: project.dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CAPI_OPENSTACK_BACKUP_KEY: KEY },
      timeout: 10 * 60_000,
    });
  const list = async (plural: string, apiVersion = CAPI) => ok(await client.get(`/apis/${apiVersion}/namespaces/${namespace}/${plural}`), `listing ${plural}`, [200]).items as any[];
  const startControllers = async (what: string) => {
    const started = await timed(what, async () => script('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: runId }));
    if (started.status !== 0) throw new Error(`scripts/local-capi/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
  };
  const startSim = () =>
    SimulatedWorkloadCluster.start({
      management: client,
      namespace,
      cluster: CLUSTER,
      kubeBinDir: bash('. scripts/local-kube/lib.sh && echo "$LOCAL_KUBE_BIN_DIR"'),
      etcdUrl: `http://127.0.0.1:${process.env.LOCAL_KUBE_ETCD_CLIENT_PORT ?? 23790}`,
      dir: path.join(CACHE, 'local-capi', 'logs', runId, `restore-workload-${CLUSTER}`),
      log,
    });
  const machinesRunning = (count: number) =>
    waitFor(`${count} Machines Running`, 10 * 60_000, async () => {
      const ms = await list('machines');
      return ms.length === count && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
    }, 2_000);
  const servers = async () => ((await openstack.get('compute', '/servers/detail')).servers as any[]).filter((s) => s.name.startsWith(`${CLUSTER}-`)).map((s) => `${s.name} ${s.id} ${s.status}`).sort();
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy failed; see the first failing test');
  };

  beforeAll(async () => {
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js does not exist: run npm run build first (npm run test:e2e does)');
    lock = await acquireE2eLock({ holder: 'management restore e2e', timeoutSeconds: 40 * 60, log });
    openstack = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, parse(fs.readFileSync(SOURCE_ENV, 'utf8')).cloud.name));
    client = kubeClientFromKubeconfig(KUBECONFIG, 'local-kube');
    const foreign = ok(await client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) throw new Error(`the local kube-apiserver already holds Cluster objects (${foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ')}); start from empty state (scripts/local-kube/stop --wipe; scripts/local-kube/start)`);
    beforeDeploy = await projectListing(openstack);
    runId = `restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await startControllers('controllers start');
    project = new WorkloadProject(STACK, SOURCE_ENV, CLUSTER, { kubeconfigFile: KUBECONFIG, context: 'local-kube' }, toolchainEnv(CLOUDS_YAML));
    project.writeVariant(BASE_VARIANT);
    namespace = project.namePrefix;
    backupDir = path.join(project.dir, 'backups');
  }, 45 * 60_000);

  afterAll(async () => {
    try {
      if (project && (await project.stateList()).length > 0) {
        const r = await project.terraform(['destroy', '-auto-approve', '-input=false', '-no-color'], 20 * 60_000);
        if (r.code !== 0) log(`afterAll: terraform destroy failed (${r.code}):\n${tail(r, 30)}`);
      }
    } finally {
      await sim?.stop().catch((e) => log(`afterAll: stopping the simulated workload: ${(e as Error).message}`));
      script('local-capi/stop', [], process.env, 120_000);
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await lock?.release();
      writeSuiteSummary('management-restore', timer, { stack: STACK, findings, controllerLogs: runId && path.join(CACHE, 'local-capi', 'logs', runId) });
    }
  });

  test('a workload cluster is deployed and running', async () => {
    expectExit(await timed('deploy (cdktf deploy)', () => project.cdktf(['deploy', STACK, '--auto-approve'], 20 * 60_000)), `cdktf deploy ${STACK}`);
    deployed = true;
    sim = await timed('workload API server up', startSim);
    await timed('machines running', () => machinesRunning(3));
    serversBefore = await servers();
    expect(serversBefore).toHaveLength(3);
  });

  test('management backup writes an encrypted backup of every cluster', async () => {
    needDeploy();
    const t0 = Date.now();
    const r = cli(['backup']);
    timings['backup (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    if (r.status !== 0) throw new Error(`management backup failed (${r.status}):\n${r.stderr.slice(-3000)}`);
    const [file] = fs.readdirSync(path.join(backupDir, 'local'));
    const bytes = fs.readFileSync(path.join(backupDir, 'local', file));
    timings['backup size (bytes)'] = bytes.length;
    expect(r.stdout).toMatch(new RegExp(`wrote .*${file} \\(1 clusters, \\d+ objects`));
    expect(bytes.toString('latin1')).not.toContain('OpenStackCluster');
    expect((fs.statSync(path.join(backupDir, 'local', file)).mode & 0o777).toString(8)).toBe('600');
    expect(cli(['backups']).stdout).toContain(`${namespace}/${CLUSTER}`);
    // clusterctl resumed the cluster it paused while reading
    expect((await getObject(client, { apiVersion: CAPI, kind: 'Cluster', name: CLUSTER, namespace })).spec.paused).toBeFalsy();
  });

  test('the management cluster is lost: controllers stopped, its data wiped; a fresh one holds no cluster', async () => {
    needDeploy();
    beforeLoss = await projectListing(openstack);
    await sim?.stop();
    sim = undefined;
    await timed('loss: controllers stopped, kube-apiserver wiped and started anew', async () => {
      for (const [name, args] of [['local-capi/stop', []], ['local-kube/stop', ['--wipe']], ['local-kube/start', []]] as const) {
        const r = script(name, [...args]);
        if (r.status !== 0) throw new Error(`scripts/${name} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
      }
    });
    await startControllers('controllers installed again');
    client = kubeClientFromKubeconfig(KUBECONFIG, 'local-kube');
    expect(ok(await client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items).toEqual([]);
  });

  test('management restore: the Cluster is ready again on the same servers, OpenStack unchanged, the re-plan empty', async () => {
    needDeploy();
    const t0 = Date.now();
    const r = cli(['restore']);
    if (r.status !== 0) throw new Error(`management restore failed (${r.status}):\n${r.stderr.slice(-3000)}`);
    expect(r.stdout).toMatch(/^restored 1 clusters \(\d+ objects\)/);
    sim = await timed('workload API server up again', startSim);
    await timed('restore to OpenStackCluster ready', () =>
      waitFor('the OpenStackCluster to be ready again', 10 * 60_000, async () => ((await getObject(client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace }))?.status?.ready === true ? true : undefined), 2_000),
    );
    await timed('restore to machines running', () => machinesRunning(3));
    timings['restore to Cluster ready (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    expect(await servers()).toEqual(serversBefore);
    expect(await projectListing(openstack)).toEqual(beforeLoss);
    const { changes } = await timed('re-plan after the restore', () => project.plan());
    expect(changes).toEqual([]);
  });

  test('a scale-up after the restore is reconciled by the new management cluster', async () => {
    needDeploy();
    project.writeVariant({ ...BASE_VARIANT, workerCount: 3 });
    await project.synth();
    const { changes } = await project.plan();
    expect(changes.map((c) => c.actions.join())).toEqual(['update']);
    expectExit(await project.applyPlan(), 'terraform apply (worker count)');
    await timed('scale-up to 4 machines running', () => machinesRunning(4));
    const now = await servers();
    expect(now).toHaveLength(4);
    expect(now.filter((s) => serversBefore.includes(s))).toEqual(serversBefore);
  });

  test('destroy leaves the project listing as it was before the deploy', async () => {
    needDeploy();
    expectExit(await timed('destroy (cdktf destroy)', () => project.cdktf(['destroy', STACK, '--auto-approve'], 30 * 60_000)), `cdktf destroy ${STACK}`);
    deployed = false;
    expect(await projectListing(openstack)).toEqual(beforeDeploy);
    expect(await project.stateList()).toEqual([]);
  });
});
