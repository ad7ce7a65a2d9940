/**
 * Setup and teardown of a workload cluster whose servers boot in node stand-ins (issue 35), for
 * the suites that deploy one through the product and then act on its real nodes (workload-nodes;
 * day-2 suites may reuse it): the node images, the shared e2e lock, the local cloud's sessions,
 * the Cluster API controllers of a run (scripts/local-capi), the throw-away cdktf project with its
 * environment variant, and the stand-in hypervisor (support/workload-hypervisor.ts); afterwards a
 * destroy of what is left, the hypervisor and the controllers stopped, the lock released.
 *
 * `setUp` fills the fields in that order; `tearDown` undoes whatever of it happened, so a failed
 * setUp is cleaned up by the same call.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { OCCM_LB_PREFIX } from '../../../lib/runtime/cleanup/matchers';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { buildWorkloadImages } from '../helpers/workload-node-checks';
import { acquireE2eLock, E2eLock } from './e2e-lock';
import { testDocker } from './hypervisor-kit';
import { CACHE_DIR, LOCAL_CAPI_STATE, LOCAL_CLOUDS_YAML, LOCAL_KUBECONFIG } from './lane-paths';
import { OpenStackApi, readCloudEntry } from './openstack-api';
import { PhaseTimer } from './phase-timer';
import { projectListing, ProjectListing } from './project-listing';
import { kubeClientFromKubeconfig, ok } from './workload-kube';
import { BootedNode, WorkloadHypervisor } from './workload-hypervisor';
import { cloudEntryFromFile, OpenStackSession } from './workload-openstack';
import { ROOT, toolchainEnv } from './workload-process';
import { VariantChanges, WorkloadProject } from './workload-project';

const CAPI = 'cluster.x-k8s.io/v1beta2';

/** The site scripts/local-vm/start writes (registry mirrors of the nodes). */
export const LOCAL_VM_SITE = path.join(CACHE_DIR, 'local-vm-site.json');

/** Runs a program of scripts/ (e.g. `local-capi/start`), synchronously. */
export function localScript(name: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}

/** Why a booted-cluster suite cannot run here ([] when it can): controllers not built, node images' script missing. */
export function bootedClusterPrerequisitesMissing(): string[] {
  return [
    localScript('local-capi/build', ['--check']).status !== 0 && 'the Cluster API controllers are not built (scripts/local-capi/build)',
    !fs.existsSync(path.join(ROOT, 'scripts', 'local-vm', 'build-workload-images')) && 'scripts/local-vm/build-workload-images is missing',
  ].filter(Boolean) as string[];
}

export interface BootedClusterOptions {
  /** The cluster of the environment file that is deployed. */
  readonly cluster: string;
  /** The environment file the project's variant starts from (environments/local.yaml). */
  readonly sourceEnv: string;
  /** Who holds the e2e lock (shown to waiters). */
  readonly holder: string;
  /** Container and network names of this lane's stand-ins on the test dockerd start with `<tag>-`. */
  readonly tag: string;
  readonly dockerHost: string;
  /** Changes of the environment variant besides the site's registry mirrors (which every node pulls through). */
  readonly variant: (site: any) => VariantChanges;
  readonly timer: PhaseTimer;
  /**
   * Node stand-in images for Glance images other than the environment version's, by Glance image
   * name, read at each boot (a day-2 suite adds its upgrade target's).
   * @default - none
   */
  readonly moreNodeImages?: ReadonlyMap<string, string>;
}

export class BootedCluster {
  readonly stack: string;
  readonly version: string;
  lock: E2eLock | undefined;
  images: { node: string; amphora: string } | undefined;
  project: WorkloadProject | undefined;
  client!: KubeClient;
  openstack!: OpenStackSession;
  hypervisor: WorkloadHypervisor | undefined;
  namespace!: string;
  before!: ProjectListing;
  runId: string | undefined;

  constructor(private readonly o: BootedClusterOptions) {
    this.stack = `local-${o.cluster}`;
    this.version = parse(fs.readFileSync(o.sourceEnv, 'utf8')).clusters[o.cluster].kubernetesVersion as string;
  }

  async setUp(): Promise<void> {
    const { log, timed } = this.o.timer;
    if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js does not exist: run npm run build first (npm run test:e2e does)');
    this.lock = await acquireE2eLock({ holder: this.o.holder, timeoutSeconds: 40 * 60, log });
    const images = await timed('node images (build-workload-images)', async () => buildWorkloadImages(this.o.dockerHost, this.version));
    this.images = images;
    log(`node image ${images.node}`);

    const cloudName = parse(fs.readFileSync(this.o.sourceEnv, 'utf8')).cloud.name as string;
    this.openstack = await OpenStackSession.login(cloudEntryFromFile(LOCAL_CLOUDS_YAML, cloudName));
    const admin = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-admin'));
    const missing = ['load-balancer', 'volumev3'].filter((type) => !admin.hasService(type));
    if (missing.length > 0) throw new Error(`the local cloud has no ${missing.join(', ')} service: restart it with LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start`);
    this.before = await projectListing(this.openstack);
    this.client = kubeClientFromKubeconfig(LOCAL_KUBECONFIG, 'local-kube');
    const foreign = ok(await this.client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) {
      throw new Error(`the lane's kube-apiserver already holds Cluster objects (${foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ')}): the controllers would reconcile them too`);
    }
    // stand-ins an interrupted run of this lane left on the test dockerd
    const left = testDocker(this.o.dockerHost, ['ps', '-aq', '--filter', `name=^${this.o.tag}-`]).out.split('\n').filter(Boolean);
    if (left.length > 0) testDocker(this.o.dockerHost, ['rm', '-f', '-v', ...left]);

    const runId = `nodes-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    this.runId = runId;
    const started = await timed('controllers start', async () => localScript('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: runId }, 300_000));
    if (started.status !== 0) throw new Error(`scripts/local-capi/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
    log(`controller logs: ${this.controllerLogs}`);

    const site = JSON.parse(fs.readFileSync(LOCAL_VM_SITE, 'utf8'));
    const project = new WorkloadProject(this.stack, this.o.sourceEnv, this.o.cluster, { kubeconfigFile: LOCAL_KUBECONFIG, context: 'local-kube' }, toolchainEnv(LOCAL_CLOUDS_YAML));
    this.project = project;
    // the site's registry mirrors every image the nodes pull
    project.writeVariant({ registryMirrors: site.registryMirrors, ...this.o.variant(site) });
    this.namespace = project.namePrefix;
    log(`project ${project.dir}`);
    const cluster = this.o.cluster;
    this.hypervisor = new WorkloadHypervisor({
      admin,
      management: this.client,
      namespace: this.namespace,
      cluster,
      projectId: this.openstack.projectId,
      ownsServer: (s) => s.name.startsWith(`${cluster}-`),
      // CAPO's name for the API load balancer: k8s-clusterapi-cluster-<namespace>-<cluster>-kubeapi
      loadBalancerName: this.loadBalancerName,
      serviceLoadBalancerPrefix: this.serviceLoadBalancerPrefix,
      nodeImageFor: (glance) => (glance === `ubuntu-capi-image-${this.version}` ? images.node : this.o.moreNodeImages?.get(glance)),
      amphoraImage: images.amphora,
      workDir: path.join(this.controllerLogs!, 'hypervisor'),
      dockerHost: this.o.dockerHost,
      tag: this.o.tag,
      log,
    });
    this.hypervisor.start();
  }

  /** CAPO's name for the cluster's API load balancer. */
  get loadBalancerName(): string {
    return `k8s-clusterapi-cluster-${this.namespace}-${this.o.cluster}-kubeapi`;
  }

  /** OCCM's name prefix for the load balancers of the cluster's Services: its --cluster-name is the cluster's resource name, the namespace. */
  get serviceLoadBalancerPrefix(): string {
    return `${OCCM_LB_PREFIX}${this.namespace}_`;
  }

  /** Where this run's controllers (and the hypervisor's seeds) log. */
  get controllerLogs(): string | undefined {
    return this.runId && path.join(LOCAL_CAPI_STATE, 'logs', this.runId);
  }

  /** Destroys what the stack left, stops the hypervisor (its events go to `figures`) and the controllers, releases the lock. */
  async tearDown(figures: Record<string, unknown>): Promise<void> {
    const { log } = this.o.timer;
    const project = this.project;
    try {
      if (project && (await project.stateList()).length > 0) {
        log('afterAll: cdktf destroy of what is left');
        const r = await project.cdktf(['destroy', this.stack, '--auto-approve'], 20 * 60_000);
        if (r.code !== 0) log(`afterAll: cdktf destroy failed (${r.code}):\n${r.output.slice(-3000)}`);
      }
    } finally {
      if (this.hypervisor) await this.stopHypervisor(figures);
      const stopped = localScript('local-capi/stop', [], process.env, 120_000);
      if (stopped.status !== 0) log(`afterAll: scripts/local-capi/stop failed: ${stopped.stderr.slice(-2000)}`);
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await this.lock?.release();
    }
  }

  /** Stops the hypervisor and keeps its events in `figures.hypervisorEvents`. */
  async stopHypervisor(figures: Record<string, unknown>): Promise<void> {
    const h = this.hypervisor;
    if (!h) return;
    figures.hypervisorEvents = h.events;
    await h.stop();
    this.hypervisor = undefined;
  }

  // --- the booted cluster, for the tests ---

  /** Objects of a namespaced kind in the cluster's namespace of the management cluster. */
  async list(apiVersion: string, plural: string): Promise<any[]> {
    return ok(await this.client.get(`/apis/${apiVersion}/namespaces/${this.namespace}/${plural}`), `listing ${plural}`, [200]).items as any[];
  }

  /** The workload cluster's API, as its kubeconfig Secret says. */
  async workload(): Promise<KubeClient> {
    const w = await this.hypervisor!.workloadClient();
    if (!w) throw new Error(`no kubeconfig Secret ${this.namespace}/${this.o.cluster}-kubeconfig yet`);
    return w;
  }

  /** The workload cluster's Nodes ([] while its API does not answer). */
  async nodes(): Promise<any[]> {
    const r = await (await this.workload()).get('/api/v1/nodes');
    return r.kind === 'response' && r.status === 200 ? (r.body as any).items : [];
  }

  booted(): BootedNode[] {
    return [...this.hypervisor!.nodes.values()];
  }

  controlPlaneNodes(): BootedNode[] {
    return this.booted().filter((n) => /-control-plane-/.test(n.serverName));
  }

  workerNodes(): BootedNode[] {
    return this.booted().filter((n) => /-md-0-/.test(n.serverName));
  }

  /** A command on a node's stand-in, as root (docker exec). */
  onNode(n: BootedNode, argv: readonly string[], timeoutMs?: number): { code: number | null; out: string } {
    return this.hypervisor!.exec(n.container, argv, timeoutMs);
  }
}

/** Whether a Node's Ready condition is True. */
export function isNodeReady(n: any): boolean {
  return (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

/** When the kubelet last reported the Node's Ready condition (epoch ms; 0 without one). */
export function readyHeartbeat(n: any): number {
  const ready = (n.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  return ready?.lastHeartbeatTime ? Date.parse(ready.lastHeartbeatTime) : 0;
}
