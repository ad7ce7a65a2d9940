/**
 * What the Day-2 suites (management restore, controller upgrade) share: the local services they
 * need, the controllers started for a run, a workload project of the control-loop's cluster, its
 * simulated data plane, and the `capi-openstack management` CLI run against them.
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { BASE_VARIANT, CLUSTER } from './control-loop-variant';
import { acquireE2eLock, E2eLock } from '../support/e2e-lock';
import { LOCAL_CAPI_STATE, LOCAL_CLOUDS_YAML, LOCAL_KUBE_ETCD_URL, LOCAL_KUBECONFIG } from '../support/lane-paths';
import { projectListing, ProjectListing } from '../support/project-listing';
import { SimulatedWorkloadCluster } from '../support/simulated-workload';
import { kubeClientFromKubeconfig, ok, waitFor } from '../support/workload-kube';
import { cloudEntryFromFile, OpenStackSession } from '../support/workload-openstack';
import { expectExit, localKubeBinDir, ROOT, tail, toolchainEnv } from '../support/workload-process';
import { WorkloadProject } from '../support/workload-project';

export const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const KUBECONFIG = LOCAL_KUBECONFIG;
const CLOUDS_YAML = LOCAL_CLOUDS_YAML;
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
export const CAPI = 'cluster.x-k8s.io/v1beta2';
export const STACK = `local-${CLUSTER}`;

export function script(name: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 300_000): SpawnSyncReturns<string> {
  return spawnSync(path.join(ROOT, 'scripts', name), [...args], { encoding: 'utf8', env, timeout: timeoutMs });
}

/** A line of bash in the repository (reading the scripts' locations). */
export function bash(line: string, env: NodeJS.ProcessEnv = process.env): string {
  return spawnSync('bash', ['-c', line], { cwd: ROOT, encoding: 'utf8', env }).stdout.trim();
}

/** Why the suite cannot run: the local services and builds it needs. */
export function missingServices(): string[] {
  return [
    script('local-kube/status', [], process.env, 60_000).status !== 0 && 'the local kube-apiserver is not running (scripts/local-kube/start)',
    script('local-cloud/status', [], process.env, 60_000).status !== 0 && 'the local OpenStack is not running (LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start)',
    script('local-capi/build', ['--check'], process.env, 60_000).status !== 0 && 'the Cluster API controllers and clusterctl (at the pinned versions and the upgrade target) are not built (scripts/local-capi/build)',
    script('local-kube/build', ['--check'], process.env, 60_000).status !== 0 && 'the kubelet stand-in of the simulated workload clusters is not built (scripts/local-kube/build)',
  ].filter(Boolean) as string[];
}

export class Day2Harness {
  client!: KubeClient;
  openstack!: OpenStackSession;
  project!: WorkloadProject;
  sim: SimulatedWorkloadCluster | undefined;
  readonly backupDir: string;
  readonly runId: string;

  constructor(
    prefix: string,
    private readonly log: (line: string) => void,
  ) {
    this.runId = `${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    this.backupDir = fs.mkdtempSync(path.join(os.tmpdir(), `capi-e2e-${prefix}-backups-`));
  }

  get namespace(): string {
    return this.project.namePrefix;
  }

  private lock: E2eLock | undefined;

  /** beforeAll: the services (`why` lists what is missing), the e2e lock, setUp, the controllers; the project listing before anything. */
  async begin(why: readonly string[], holder: string, timed: <T>(what: string, fn: () => Promise<T>) => Promise<T>, controllers: NodeJS.ProcessEnv = {}): Promise<ProjectListing> {
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js does not exist: run npm run build first (npm run test:e2e does)');
    this.lock = await acquireE2eLock({ holder, timeoutSeconds: 40 * 60, log: this.log });
    // other controller versions: a fresh kube-apiserver with their CRDs (local-kube installs the CRDs of LOCAL_CAPI_CLUSTER_API_VERSION)
    if (Object.keys(controllers).length > 0) await timed('local kube-apiserver with those controllers\' CRDs', async () => this.loseManagementCluster(controllers));
    await this.setUp();
    const listing = await projectListing(this.openstack);
    await timed('controllers start', async () => this.startControllers(controllers));
    return listing;
  }

  /** afterAll: what a failed run left destroyed, the suite's processes stopped, (`fresh`) a fresh local kube-apiserver, the lock released. */
  async end(fresh: boolean): Promise<void> {
    try {
      await this.destroyLeftovers();
    } finally {
      await this.tearDown();
      if (fresh) this.loseManagementCluster();
      await this.lock?.release();
    }
  }

  /** Login, no foreign Clusters, the workload project of the control-loop's cluster. */
  async setUp(): Promise<void> {
    this.reconnect();
    this.openstack = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, parse(fs.readFileSync(SOURCE_ENV, 'utf8')).cloud.name));
    const foreign = ok(await this.client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) throw new Error(`the local kube-apiserver already holds Cluster objects (${foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ')}); start from empty state (scripts/local-kube/stop --wipe; scripts/local-kube/start)`);
    this.project = new WorkloadProject(STACK, SOURCE_ENV, CLUSTER, { kubeconfigFile: KUBECONFIG, context: 'local-kube' }, toolchainEnv(CLOUDS_YAML));
    this.project.writeVariant(BASE_VARIANT);
  }

  /** scripts/local-capi/start for this run (`env` picks other controller versions). */
  startControllers(env: NodeJS.ProcessEnv = {}): void {
    const r = script('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: this.runId, ...env });
    if (r.status !== 0) throw new Error(`scripts/local-capi/start failed (${r.status}):\n${r.stderr.slice(-3000)}`);
  }

  /** A new client after the local kube-apiserver was started anew (new CA and certificates). */
  reconnect(): void {
    this.client = kubeClientFromKubeconfig(KUBECONFIG, 'local-kube');
  }

  async startSim(): Promise<void> {
    this.sim = await SimulatedWorkloadCluster.start({
      management: this.client,
      namespace: this.namespace,
      cluster: CLUSTER,
      kubeBinDir: localKubeBinDir(),
      etcdUrl: LOCAL_KUBE_ETCD_URL,
      dir: path.join(LOCAL_CAPI_STATE, 'logs', this.runId, `workload-${CLUSTER}`),
      log: this.log,
    });
  }

  async stopSim(): Promise<void> {
    await this.sim?.stop();
    this.sim = undefined;
  }

  async list(plural: string, apiVersion = CAPI): Promise<any[]> {
    return ok(await this.client.get(`/apis/${apiVersion}/namespaces/${this.namespace}/${plural}`), `listing ${plural}`, [200]).items as any[];
  }

  machinesRunning(count: number): Promise<any[]> {
    return waitFor(`${count} Machines Running`, 10 * 60_000, async () => {
      const ms = await this.list('machines');
      return ms.length === count && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
    }, 2_000);
  }

  /** `<name> <id> <status>` of the cluster's servers. */
  async servers(): Promise<string[]> {
    return ((await this.openstack.get('compute', '/servers/detail')).servers as any[]).filter((s) => s.name.startsWith(`${CLUSTER}-`)).map((s) => `${s.name} ${s.id} ${s.status}`).sort();
  }

  /** `capi-openstack management <action> local …` with a backup key of the run (`env` adds to or overrides PATH, HOME and the key). */
  management(action: string, extra: readonly string[] = [], clusterctl = bash('. scripts/local-capi/lib.sh && controller_bin clusterctl'), env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
    return spawnSync(process.execPath, [path.join(ROOT, 'dist', 'bin', 'capi-openstack.js'), 'management', action, 'local', '--dir', this.project.envDir, '--backup-dir', this.backupDir, '--clusterctl', clusterctl, ...extra], {
      cwd: this.project.dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CAPI_OPENSTACK_BACKUP_KEY: `e2e-key-of-${this.runId}`, ...env },
      timeout: 15 * 60_000,
    });
  }

  /** cdktf deploy of the workload stack, its simulated data plane, 3 Machines Running (returned). */
  async deployRunning(timed: <T>(what: string, fn: () => Promise<T>) => Promise<T>): Promise<any[]> {
    expectExit(await timed('deploy (cdktf deploy)', () => this.project.cdktf(['deploy', STACK, '--auto-approve'], 20 * 60_000)), `cdktf deploy ${STACK}`);
    await timed('workload API server up', () => this.startSim());
    return timed('machines running', () => this.machinesRunning(3));
  }

  async destroyStack(timed: <T>(what: string, fn: () => Promise<T>) => Promise<T>): Promise<void> {
    expectExit(await timed('destroy (cdktf destroy)', () => this.project.cdktf(['destroy', STACK, '--auto-approve'], 30 * 60_000)), `cdktf destroy ${STACK}`);
  }

  /** afterAll: terraform destroy of what a failed run left in the state. */
  async destroyLeftovers(): Promise<void> {
    if (!this.project || (await this.project.stateList()).length === 0) return;
    const r = await this.project.terraform(['destroy', '-auto-approve', '-input=false', '-no-color'], 20 * 60_000);
    if (r.code !== 0) this.log(`afterAll: terraform destroy failed (${r.code}):\n${tail(r, 30)}`);
  }

  /** Stops what the suite started and leaves a fresh local kube-apiserver (CRDs as local-kube installs them). */
  async tearDown(): Promise<void> {
    await this.stopSim().catch((e) => this.log(`stopping the simulated workload: ${(e as Error).message}`));
    script('local-capi/stop', [], process.env, 120_000);
    fs.rmSync(this.backupDir, { recursive: true, force: true });
    if (this.project && process.env.KEEP_E2E_PROJECT !== '1') this.project.remove();
  }

  /** Stand-in for a lost management VM: controllers stopped, the kube-apiserver's data wiped, a fresh one started. */
  loseManagementCluster(env: NodeJS.ProcessEnv = {}): void {
    for (const [name, args] of [['local-capi/stop', []], ['local-kube/stop', ['--wipe']], ['local-kube/start', []]] as const) {
      const r = script(name, [...args], { ...process.env, ...env });
      if (r.status !== 0) throw new Error(`scripts/${name} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
    }
    this.reconnect();
  }
}
