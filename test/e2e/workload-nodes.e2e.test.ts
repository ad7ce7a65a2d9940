/**
 * Workload clusters that boot (issue 35): a workload cluster stack (1 control plane, 2 workers)
 * deployed with `cdktf deploy` while the Cluster API controllers run (scripts/local-capi) against
 * this lane's kube-apiserver and the local OpenStack (Octavia, Cinder) — and every server CAPO
 * creates boots for real: support/workload-hypervisor.ts (test tooling) starts a node stand-in
 * (scripts/local-vm node images: systemd, cloud-init, containerd, kubelet, kubeadm, the images
 * kubeadm asks for) with the server's user data unchanged as its NoCloud seed, at the server's
 * fixed IP on a Docker network of its subnet, and a stand-in amphora (haproxy) carries the API
 * load balancer's listener to its pool members at the VIP and the floating IP.
 *
 * @e2e-global local-vm the test dockerd's stand-in public network (172.30.251.0/24), node networks of the cluster's node CIDR and the site's registry
 *
 * Then, riskiest first: the control-plane node runs `kubeadm init` from the product's user data
 * and its Node is Ready with a real kubelet; both workers join through the load balancer; etcd's
 * members are the control-plane machines; the environment's kubelet labels are on the Nodes; the
 * Machines run with nodeRefs; the node settings are in effect; destroy leaves nothing.
 *
 * The product's CNI and OCCM are add-ons the Helm add-on provider cannot fetch here: the hypervisor
 * sets a stand-in CNI (scripts/local-vm/node-cni); no OCCM runs, so the suite removes the
 * `uninitialized` taint by hand before CoreDNS can schedule and says so (OCCM is issue 36's).
 *
 * Skipped, with a message, unless the local kube-apiserver, the local cloud and scripts/local-vm
 * are up and the controllers and node images build (LOCAL_*_REQUIRED=1 make that a failure).
 * Holds the shared e2e lock.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { localVmDockerHost, testDocker } from './support/hypervisor-kit';
import { CACHE_DIR, LOCAL_CAPI_STATE, LOCAL_CLOUDS_YAML, LOCAL_KUBECONFIG } from './support/lane-paths';
import { OpenStackApi, readCloudEntry } from './support/openstack-api';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { projectListing, ProjectListing } from './support/project-listing';
import { serviceGate } from './support/service-gate';
import { getObject, kubeClientFromKubeconfig, ok, waitFor } from './support/workload-kube';
import { BootedNode, WorkloadHypervisor } from './support/workload-hypervisor';
import { buildWorkloadImages, etcdMemberNames, expectServiceReachedFromWorker, UNINITIALIZED_TAINT } from './helpers/workload-node-checks';
import { cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';
import { expectExit, ROOT, toolchainEnv } from './support/workload-process';
import { WorkloadProject } from './support/workload-project';

const CLUSTER = 'e2e';
const STACK = `local-${CLUSTER}`;
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const VERSION = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).clusters[CLUSTER].kubernetesVersion as string;
const SITE = path.join(CACHE_DIR, 'local-vm-site.json');
const DOCKER_HOST = localVmDockerHost(CACHE_DIR);
/** Container and network names of this lane's stand-ins on the test dockerd. */
const TAG = `wl${process.env.E2E_LANE ?? '0'}`;
const WORKER_LABELS = { 'example.com/suite': 'workload-nodes', 'node.kubernetes.io/pool': 'md-0' };
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const KCP = 'controlplane.cluster.x-k8s.io/v1beta2';

function script(name: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}
const gate = serviceGate('workload-nodes e2e', ['local-kube', 'local-cloud', 'local-vm']);
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1' || process.env.LOCAL_VM_REQUIRED === '1';
const why = [script('local-capi/build', ['--check']).status !== 0 && 'the Cluster API controllers are not built (scripts/local-capi/build)', !fs.existsSync(path.join(ROOT, 'scripts', 'local-vm', 'build-workload-images')) && 'scripts/local-vm/build-workload-images is missing'].filter(Boolean) as string[];
if (why.length > 0 && !REQUIRED) console.warn(`workload-nodes e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length > 0 && !REQUIRED ? describe.skip : gate.suite;
const timer = phaseTimer('workload-nodes e2e');
const { timings, log, timed } = timer;
const figures: Record<string, unknown> = {};
const findings: string[] = [];

suite('workload clusters that boot: every server CAPO creates runs the product\'s user data in a node stand-in', () => {
  let lock: E2eLock | undefined;
  let project: WorkloadProject;
  let client: KubeClient;
  let openstack: OpenStackSession;
  let hypervisor: WorkloadHypervisor | undefined;
  let namespace: string;
  let before: ProjectListing;
  let runId: string;
  let deployStart = 0;
  let deployed = false;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy phase failed; see the first failing test');
  };
  const list = async (apiVersion: string, plural: string) =>
    ok(await client.get(`/apis/${apiVersion}/namespaces/${namespace}/${plural}`), `listing ${plural}`, [200]).items as any[];
  const workload = async () => {
    const w = await hypervisor!.workloadClient();
    if (!w) throw new Error(`no kubeconfig Secret ${namespace}/${CLUSTER}-kubeconfig yet`);
    return w;
  };
  const nodes = async (): Promise<any[]> => {
    const r = await (await workload()).get('/api/v1/nodes');
    return r.kind === 'response' && r.status === 200 ? (r.body as any).items : [];
  };
  const isReady = (n: any) => (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
  const booted = (): BootedNode[] => [...hypervisor!.nodes.values()];
  const onNode = (n: BootedNode, argv: string[]) => hypervisor!.exec(n.container, argv);
  const controlPlaneNodes = () => booted().filter((n) => /-control-plane-/.test(n.serverName));

  beforeAll(async () => {
    gate.requireRunning();
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('dist/main.js does not exist: run npm run build first (npm run test:e2e does)');
    lock = await acquireE2eLock({ holder: 'workload-nodes e2e', timeoutSeconds: 40 * 60, log });
    const { node: nodeImage, amphora: amphoraImage } = await timed('node images (build-workload-images)', async () => buildWorkloadImages(DOCKER_HOST, VERSION));
    Object.assign(figures, { nodeImage, amphoraImage });
    log(`node image ${nodeImage}`);

    const cloudName = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).cloud.name as string;
    openstack = await OpenStackSession.login(cloudEntryFromFile(LOCAL_CLOUDS_YAML, cloudName));
    const admin = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-admin'));
    const missing = ['load-balancer', 'volumev3'].filter((type) => !admin.hasService(type));
    if (missing.length > 0) throw new Error(`the local cloud has no ${missing.join(', ')} service: restart it with LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start`);
    before = await projectListing(openstack);
    client = kubeClientFromKubeconfig(LOCAL_KUBECONFIG, 'local-kube');
    const foreign = ok(await client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) {
      throw new Error(`the lane's kube-apiserver already holds Cluster objects (${foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ')}): the controllers would reconcile them too`);
    }
    // stand-ins an interrupted run of this lane left on the test dockerd
    const left = testDocker(DOCKER_HOST, ['ps', '-aq', '--filter', `name=^${TAG}-`]).out.split('\n').filter(Boolean);
    if (left.length > 0) testDocker(DOCKER_HOST, ['rm', '-f', '-v', ...left]);

    runId = `nodes-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const started = await timed('controllers start', async () => script('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: runId }, 300_000));
    if (started.status !== 0) throw new Error(`scripts/local-capi/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
    log(`controller logs: ${path.join(LOCAL_CAPI_STATE, 'logs', runId)}`);

    const site = JSON.parse(fs.readFileSync(SITE, 'utf8'));
    project = new WorkloadProject(STACK, SOURCE_ENV, CLUSTER, { kubeconfigFile: LOCAL_KUBECONFIG, context: 'local-kube' }, toolchainEnv(LOCAL_CLOUDS_YAML));
    // the site's registry mirrors every image the nodes pull; the workers carry labels of the environment
    project.writeVariant({ registryMirrors: site.registryMirrors, workerLabels: WORKER_LABELS });
    namespace = project.namePrefix;
    log(`project ${project.dir}`);
    const projectId = openstack.projectId;
    hypervisor = new WorkloadHypervisor({
      admin,
      management: client,
      namespace,
      cluster: CLUSTER,
      projectId,
      ownsServer: (s) => s.name.startsWith(`${CLUSTER}-`),
      // CAPO's name for the API load balancer: k8s-clusterapi-cluster-<namespace>-<cluster>-kubeapi
      loadBalancerName: `k8s-clusterapi-cluster-${namespace}-${CLUSTER}-kubeapi`,
      nodeImageFor: (glance) => (glance === `ubuntu-capi-image-${VERSION}` ? nodeImage : undefined),
      amphoraImage,
      workDir: path.join(LOCAL_CAPI_STATE, 'logs', runId, 'hypervisor'),
      dockerHost: DOCKER_HOST,
      tag: TAG,
      log,
    });
    hypervisor.start();
  }, 90 * 60_000);

  afterAll(async () => {
    try {
      if (project && (await project.stateList()).length > 0) {
        log('afterAll: cdktf destroy of what is left');
        const r = await project.cdktf(['destroy', STACK, '--auto-approve'], 20 * 60_000);
        if (r.code !== 0) log(`afterAll: cdktf destroy failed (${r.code}):\n${r.output.slice(-3000)}`);
      }
    } finally {
      if (hypervisor) {
        figures.hypervisorEvents = hypervisor.events;
        await hypervisor.stop();
      }
      const stopped = script('local-capi/stop', [], process.env, 120_000);
      if (stopped.status !== 0) log(`afterAll: scripts/local-capi/stop failed: ${stopped.stderr.slice(-2000)}`);
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await lock?.release();
      writeSuiteSummary('workload-nodes', timer, { stack: STACK, findings, ...figures, controllerLogs: runId && path.join(LOCAL_CAPI_STATE, 'logs', runId) });
    }
  }, 30 * 60_000);

  test('cdktf deploy is accepted and CAPO makes the OpenStackCluster ready with its API load balancer', async () => {
    deployStart = Date.now();
    const result = await timed('deploy (cdktf deploy)', () => project.cdktf(['deploy', STACK, '--auto-approve'], 20 * 60_000));
    expectExit(result, `cdktf deploy ${STACK}`);
    deployed = true;
    const oscReady = async () => getObject(client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace }).then((o) => (o?.status?.ready === true ? o : undefined));
    const osc = await timed('OpenStackCluster ready', () => waitFor('the OpenStackCluster to become ready', 10 * 60_000, oscReady, 2_000));
    // the hypervisor follows the load balancer CAPO made, by the name it expects
    expect(osc.status.apiServerLoadBalancer.name).toBe(`k8s-clusterapi-cluster-${namespace}-${CLUSTER}-kubeapi`);
  }, 35 * 60_000);

  test('the control-plane server boots from the product\'s user data: kubeadm init passes, its Node is Ready with a real kubelet', async () => {
    needDeploy();
    const node = await timed('control-plane Node Ready', () =>
      waitFor('a Ready control-plane Node', 20 * 60_000, async () => {
        if (hypervisor!.lastError) log(`hypervisor: ${hypervisor!.lastError}`);
        const cp = controlPlaneNodes()[0];
        if (!cp) return undefined;
        const n = (await nodes().catch(() => [])).find((x) => x.metadata.name === cp.serverName);
        return n && isReady(n) ? { n, cp } : undefined;
      }, 5_000),
    );
    timings['deploy start → control-plane Node Ready'] = Math.round((Date.now() - deployStart) / 100) / 10;
    const { n, cp } = node;
    expect(n.spec.providerID).toBe(`openstack:///${cp.serverId}`);
    expect(n.status.nodeInfo.kubeletVersion).toBe(VERSION);
    expect(onNode(cp, ['systemctl', 'is-active', 'kubelet']).out.trim()).toBe('active');
    expect(onNode(cp, ['cat', '/var/log/cloud-init-output.log']).out).toContain('Your Kubernetes control-plane has initialized successfully');
    const status = onNode(cp, ['cloud-init', 'status', '--long']);
    log(`cloud-init on ${cp.serverName}: ${status.out.trim().split('\n').join('; ')}`);
    expect(status.out).toContain('status: done');
  }, 25 * 60_000);

  test('both workers join through the load balancer and are Ready', async () => {
    needDeploy();
    const ready = await timed('all Nodes Ready', () =>
      waitFor('3 Ready Nodes', 20 * 60_000, async () => {
        if (hypervisor!.lastError) log(`hypervisor: ${hypervisor!.lastError}`);
        const ns = await nodes().catch(() => []);
        return ns.length === 3 && ns.every(isReady) ? ns : undefined;
      }, 5_000),
    );
    timings['deploy start → all Nodes Ready'] = Math.round((Date.now() - deployStart) / 100) / 10;
    const amphora = hypervisor!.amphora!;
    const workers = booted().filter((b) => /-md-0-/.test(b.serverName));
    expect(workers).toHaveLength(2);
    for (const w of workers) {
      const n = ready.find((x) => x.metadata.name === w.serverName);
      expect({ name: w.serverName, providerID: n?.spec.providerID, kubelet: n?.status.nodeInfo.kubeletVersion }).toEqual({ name: w.serverName, providerID: `openstack:///${w.serverId}`, kubelet: VERSION });
      // the kubelet talks to the API at the floating IP, which only the amphora serves
      expect(onNode(w, ['grep', 'server:', '/etc/kubernetes/kubelet.conf']).out).toContain(`https://${amphora.fip}:6443`);
      expect(onNode(w, ['cat', '/var/log/cloud-init-output.log']).out).toContain('This node has joined the cluster');
    }
    expect(amphora.members.get(6443)).toBe(controlPlaneNodes().map((c) => `${c.address}:6443`).sort().join(' '));
    await waitFor('the hypervisor to see every Node Ready', 60_000, async () => (booted().every((b) => b.readyAt) ? true : undefined), 1_000);
    figures.bootToReadySeconds = Object.fromEntries(booted().map((b) => [b.serverName, Math.round((b.readyAt! - b.bootAt) / 100) / 10]));
    log(`boot → Ready (s): ${JSON.stringify(figures.bootToReadySeconds)}`);
    const stats = testDocker(DOCKER_HOST, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...booted().map((b) => b.container), amphora.container]).out.trim();
    figures.memory = stats.split('\n');
    log(`memory: ${stats.split('\n').join('; ')}`);
  }, 25 * 60_000);

  test('etcd\'s members are the control-plane machines', async () => {
    needDeploy();
    const cps = controlPlaneNodes();
    const cp = cps[0];
    const names = etcdMemberNames((argv) => onNode(cp, argv), log);
    const machines = (await list(CAPI, 'machines')).filter((m) => m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined);
    expect(names).toEqual(machines.map((m) => m.status?.nodeRef?.name).sort());
    const kcp = (await list(KCP, 'kubeadmcontrolplanes'))[0];
    const etcdHealthy = (kcp.status?.conditions ?? []).find((c: any) => c.type === 'EtcdClusterHealthy');
    // recorded, not asserted: KCP reaches etcd through a port-forward, which the API server dials to
    // the kubelet by the Node's host name until OCCM sets its addresses (no OCCM here, issue 36)
    findings.push(`KCP EtcdClusterHealthy: ${etcdHealthy?.status} (${etcdHealthy?.reason ?? ''}): its port-forward to etcd needs the Node addresses OCCM sets`);
  });

  test('the environment\'s kubelet labels are on the worker Nodes, and every Machine runs with a nodeRef', async () => {
    needDeploy();
    const ns = await nodes();
    for (const w of booted().filter((b) => /-md-0-/.test(b.serverName))) {
      const labels = ns.find((n) => n.metadata.name === w.serverName)?.metadata.labels ?? {};
      expect({ node: w.serverName, labels: Object.fromEntries(Object.keys(WORKER_LABELS).map((k) => [k, labels[k]])) }).toEqual({ node: w.serverName, labels: WORKER_LABELS });
    }
    const machines = await waitFor('3 Machines Running with nodeRefs', 5 * 60_000, async () => {
      const ms = await list(CAPI, 'machines');
      return ms.length === 3 && ms.every((m) => m.status?.phase === 'Running' && m.status?.nodeRef?.name) ? ms : undefined;
    }, 3_000);
    expect(machines.map((m) => m.status.nodeRef.name).sort()).toEqual(ns.map((n) => n.metadata.name).sort());
    const tainted = ns.filter((n) => (n.spec.taints ?? []).some((t: any) => t.key === UNINITIALIZED_TAINT)).map((n) => n.metadata.name);
    findings.push(`no OCCM runs here (issue 36's add-on): ${tainted.length} of ${ns.length} Nodes keep the ${UNINITIALIZED_TAINT} taint`);
  });

  test('CoreDNS runs and a pod on a worker reaches a Service by name, its image pulled through the registry mirror', async () => {
    needDeploy();
    const worker = booted().find((b) => /-md-0-/.test(b.serverName))!;
    await expectServiceReachedFromWorker({ workload: await workload(), nodes, worker: worker.serverName, onWorker: (argv) => onNode(worker, argv), amphoraImage: figures.amphoraImage as string, dockerHost: DOCKER_HOST, findings, log, timed });
  });

  test('node settings in effect: registry mirror hosts.toml read by containerd, etcd flags in the etcd manifest', async () => {
    needDeploy();
    const cp = controlPlaneNodes()[0];
    const hosts = onNode(cp, ['cat', '/etc/containerd/certs.d/registry.k8s.io/hosts.toml']);
    expect(hosts.out).toContain('[host."http://172.30.250.1:5000"]');
    // containerd's CRI plugin looks for hosts.toml where the product writes them
    const config = onNode(cp, ['containerd', 'config', 'dump']).out;
    expect(config).toMatch(/config_path = ['"]\/etc\/containerd\/certs\.d['"]/);
    const manifest = onNode(cp, ['cat', '/etc/kubernetes/manifests/etcd.yaml']).out;
    for (const flag of ['--heartbeat-interval=250', '--election-timeout=2500', '--snapshot-count=6400', '--auto-compaction-mode=periodic', '--auto-compaction-retention=8h']) expect(manifest).toContain(flag);
  });

  test('cdktf destroy leaves nothing: the project listing as before, stand-ins, amphora and networks gone', async () => {
    needDeploy();
    const result = await timed('destroy (cdktf destroy)', () => project.cdktf(['destroy', STACK, '--auto-approve'], 30 * 60_000));
    expectExit(result, `cdktf destroy ${STACK}`);
    deployed = false;
    await waitFor('the hypervisor to remove every stand-in and the amphora', 2 * 60_000, async () => (hypervisor!.nodes.size === 0 && !hypervisor!.amphora ? true : undefined), 1_000);
    await hypervisor!.stop();
    figures.hypervisorEvents = hypervisor!.events;
    hypervisor = undefined;
    expect(await projectListing(openstack)).toEqual(before);
    expect(testDocker(DOCKER_HOST, ['ps', '-a', '--format', '{{.Names}}', '--filter', `name=^${TAG}-`]).out.trim()).toBe('');
    expect(testDocker(DOCKER_HOST, ['network', 'ls', '--format', '{{.Name}}', '--filter', `name=^${TAG}-`]).out.trim()).toBe('');
    expect(await project.stateList()).toEqual([]);
  }, 35 * 60_000);
});
