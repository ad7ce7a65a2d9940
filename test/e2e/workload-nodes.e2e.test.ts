/**
 * Workload clusters that boot: a workload cluster stack (1 control plane, 2 workers) deployed with
 * `cdktf deploy` while the Cluster API controllers (scripts/local-capi) run against this lane's
 * kube-apiserver and the local OpenStack (Octavia, Cinder); every server CAPO creates boots in a node
 * stand-in (support/workload-hypervisor.ts, test tooling) with its user data unchanged, at its fixed
 * IP, and stand-in amphorae (haproxy) carry the API's and the Services' load balancers.
 * @e2e-global local-vm the test dockerd's stand-in public network (172.30.251.0/24), node networks of the cluster's node CIDR and the site's registry
 *
 * Then, riskiest first: `kubeadm init` from the product's user data, a Ready Node with a real
 * kubelet; both workers join through the load balancer; OCCM initialises every Node; a Service of
 * type LoadBalancer carries traffic, and so does Traefik's Gateway; etcd members, kubelet labels, nodeRefs, node settings;
 * MachineHealthCheck remediation (the product's default maxUnhealthyPercent, a 1-minute wait);
 * destroy leaves nothing. The product's CNI cannot run here yet (stand-in CNI: node-cni); OCCM,
 * metrics-server, cert-manager (it issues a certificate) and Traefik come through CAAPH from the
 * private chart mirror, their images built here.
 *
 * Skipped, with a message, unless the local kube-apiserver, the local cloud and scripts/local-vm are
 * up and the controllers and node images build (LOCAL_*_REQUIRED=1: a failure). Holds the e2e lock.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { BootedCluster, bootedClusterPrerequisitesMissing, isNodeReady as isReady, LOCAL_VM_SITE, readyHeartbeat } from './support/booted-cluster';
import { localVmDockerHost } from './support/hypervisor-kit';
import { CACHE_DIR } from './support/lane-paths';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { serviceGate } from './support/service-gate';
import { getObject, waitFor } from './support/workload-kube';
import { BootedNode } from './support/workload-hypervisor';
import { etcdMemberNames, expectServiceReachedFromWorker, expectWorkerLabelsAndMachineNodeRefs, memoryPerContainerMiB } from './helpers/workload-node-checks';
import { expectExit, ROOT } from './support/workload-process';
import { VariantChanges } from './support/workload-project';
import { RecordingProxy } from './support/recording-proxy';
import { expectMetadataBlocked } from './helpers/workload-metadata-check';
import { AddonMirror, startAddonMirror } from './helpers/addon-mirror';
import { expectMetricsServerAnswers } from './helpers/metrics-server-checks';
import { expectCertManagerIssues } from './helpers/cert-manager-checks';
import { expectOccmInitialisesNodes, localCloudNodeAuthUrl } from './helpers/occm-checks';
import { expectLoadBalancerServiceCarriesTraffic } from './helpers/loadbalancer-checks';
import { applyGatewayApiCrds, expectGatewayCarriesTraffic } from './helpers/gateway-traffic-checks';
import { CINDER_CSI_IMAGE_NAMES, expectCinderCsiProvisions, expectVolumesGone } from './helpers/cinder-csi-checks';
import { expectMirrorAndEtcdSettings, expectProxyAndTrustOnNodes, makeTrustFixture, proxyRequestsNotExplained, PROXIED_REGISTRY, pullThroughProxy, TrustFixture } from './helpers/node-settings-checks';
import { expectDefaultMhcRemediates } from './helpers/machine-remediation';
import { expectDestroyLeavesNothing } from './helpers/booted-destroy';

const CLUSTER = 'e2e';
const STACK = `local-${CLUSTER}`;
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const SOURCE_CLUSTER = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).clusters[CLUSTER];
const VERSION = SOURCE_CLUSTER.kubernetesVersion as string;
// lane N > 0 gets a node range of its own: the test dockerd refuses a second bridge of a range, so
// two lanes running this suite side by side would leave one lane's servers without a network
const LANE = Number(process.env.E2E_LANE ?? '0');
const NODE_CIDR = LANE > 0 ? `10.${8 + LANE}.0.0/20` : (SOURCE_CLUSTER.network.nodeCidr as string);
const DOCKER_HOST = localVmDockerHost(CACHE_DIR);
/** Container and network names of this lane's stand-ins on the test dockerd. */
const TAG = `wl${process.env.E2E_LANE ?? '0'}`;
const WORKER_LABELS = { 'example.com/suite': 'workload-nodes', 'node.kubernetes.io/pool': 'md-0' };
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI = 'cluster.x-k8s.io/v1beta2';
const KCP = 'controlplane.cluster.x-k8s.io/v1beta2';
const UNHEALTHY_AFTER_MINUTES = 1;

const gate = serviceGate('workload-nodes e2e', ['local-kube', 'local-cloud', 'local-vm']);
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1' || process.env.LOCAL_VM_REQUIRED === '1';
const why = bootedClusterPrerequisitesMissing();
if (why.length > 0 && !REQUIRED) console.warn(`workload-nodes e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length > 0 && !REQUIRED ? describe.skip : gate.suite;
const timer = phaseTimer('workload-nodes e2e');
const { timings, log, timed } = timer;
const figures: Record<string, unknown> = {};
const findings: string[] = [];

suite('workload clusters that boot: every server CAPO creates runs the product\'s user data in a node stand-in', () => {
  let siteHost: string;
  let proxy: RecordingProxy | undefined;
  let trust: TrustFixture | undefined;
  let addons: AddonMirror | undefined;
  let nodeAuthUrl: string;
  // the workers carry labels of the environment; the nodes get an outbound proxy and a private cloud CA,
  // the health checks wait 1 minute instead of 5 before they remediate (maxUnhealthyPercent stays the product's default); cert-manager and Gateway API with Traefik on
  const variant = (): VariantChanges => ({ workerLabels: WORKER_LABELS, proxy: { httpProxy: proxy!.url, noProxy: [siteHost] }, cloudCaCertificateFile: trust!.caFile, unhealthyAfterMinutes: UNHEALTHY_AFTER_MINUTES, nodeCidr: NODE_CIDR, cloudAuthUrl: { url: nodeAuthUrl, allowPlainHttp: true }, enabledAddons: ['certManager', 'gatewayApi'], addonFields: { gatewayApi: { crds: false, implementation: 'traefik' } }, ...addons!.variant });
  const run = new BootedCluster({ cluster: CLUSTER, sourceEnv: SOURCE_ENV, holder: 'workload-nodes e2e', tag: TAG, dockerHost: DOCKER_HOST, variant, timer });
  let deployStart = 0;
  let crdsAppliedAt = 0;
  let deployed = false;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy phase failed; see the first failing test');
  };
  const list = (apiVersion: string, plural: string) => run.list(apiVersion, plural);
  const workload = () => run.workload();
  const nodes = () => run.nodes();
  const booted = (): BootedNode[] => run.booted();
  const onNode = (n: BootedNode, argv: string[]) => run.onNode(n, argv);
  const controlPlaneNodes = () => run.controlPlaneNodes();

  beforeAll(async () => {
    gate.requireRunning();
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    nodeAuthUrl = localCloudNodeAuthUrl();
    // the nodes reach this machine at the site's address (its registry mirror's host): the proxy
    // listens there, and the registry mirror goes into NO_PROXY as an operator would put theirs
    siteHost = new URL(JSON.parse(fs.readFileSync(LOCAL_VM_SITE, 'utf8')).registryMirrors[0].endpoints[0]).hostname;
    proxy = await RecordingProxy.start(siteHost);
    trust = makeTrustFixture(siteHost);
    addons = await startAddonMirror(timer, ['metrics-server', 'openstack-cloud-controller-manager', ...CINDER_CSI_IMAGE_NAMES, 'traefik']);
    try {
      await run.setUp();
    } finally {
      if (run.images) Object.assign(figures, { nodeImage: run.images.node, amphoraImage: run.images.amphora });
    }
  }, 90 * 60_000);

  afterAll(async () => {
    try {
      await run.tearDown(figures);
    } finally {
      if (proxy) figures.proxyRequests = proxy.requests;
      await proxy?.stop();
      addons?.stop();
      if (trust) fs.rmSync(trust.dir, { recursive: true, force: true });
      writeSuiteSummary('workload-nodes', timer, { stack: STACK, findings, ...figures, controllerLogs: run.controllerLogs });
    }
  }, 30 * 60_000);

  test('cdktf deploy is accepted and CAPO makes the OpenStackCluster ready with its API load balancer', async () => {
    deployStart = Date.now();
    const result = await timed('deploy (cdktf deploy)', () => run.project!.cdktf(['deploy', STACK, '--auto-approve'], 20 * 60_000));
    expectExit(result, `cdktf deploy ${STACK}`);
    deployed = true;
    const oscReady = async () => getObject(run.client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace: run.namespace }).then((o) => (o?.status?.ready === true ? o : undefined));
    const osc = await timed('OpenStackCluster ready', () => waitFor('the OpenStackCluster to become ready', 10 * 60_000, oscReady, 2_000));
    // the hypervisor follows the load balancer CAPO made, by the name it expects
    expect(osc.status.apiServerLoadBalancer.name).toBe(run.loadBalancerName);
  }, 35 * 60_000);

  test('the control-plane server boots from the product\'s user data: kubeadm init passes, its Node is Ready with a real kubelet', async () => {
    needDeploy();
    const node = await timed('control-plane Node Ready', () =>
      waitFor('a Ready control-plane Node', 20 * 60_000, async () => {
        if (run.hypervisor!.lastError) log(`hypervisor: ${run.hypervisor!.lastError}`);
        const cp = controlPlaneNodes()[0];
        if (!cp) return undefined;
        const n = (await nodes().catch(() => [])).find((x) => x.metadata.name === cp.serverName);
        return n && isReady(n) ? { n, cp } : undefined;
      }, 5_000),
    );
    timings['deploy start → control-plane Node Ready'] = Math.round((Date.now() - deployStart) / 100) / 10;
    const { n, cp } = node;
    // the operator's step once the API answers (docs/addons.md#gateway-api): the Gateway API CRDs Traefik's chart needs
    crdsAppliedAt = Date.now();
    findings.push(`Gateway API ${await applyGatewayApiCrds(await workload())} CRDs applied ${Math.round((crdsAppliedAt - deployStart) / 1000)} s after the deploy started`);
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
        if (run.hypervisor!.lastError) log(`hypervisor: ${run.hypervisor!.lastError}`);
        const ns = await nodes().catch(() => []);
        return ns.length === 3 && ns.every(isReady) ? ns : undefined;
      }, 5_000),
    );
    timings['deploy start → all Nodes Ready'] = Math.round((Date.now() - deployStart) / 100) / 10;
    const amphora = run.hypervisor!.amphora!;
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
    figures.memoryMiBAllReady = memoryPerContainerMiB(DOCKER_HOST, [...booted().map((b) => b.container), amphora.container]);
    log(`memory (MiB) once all Nodes are Ready: ${JSON.stringify(figures.memoryMiBAllReady)}`);
  }, 25 * 60_000);

  test('OCCM, from the private chart mirror with its image built here, initialises every Node against the local OpenStack: providerID, InternalIPs of its Neutron ports, flavor, uninitialized taint removed', async () => {
    needDeploy();
    const image = addons!.images.find((i) => i.name === 'openstack-cloud-controller-manager')!.image;
    const r = await timed('OCCM: every Node initialised', () => expectOccmInitialisesNodes({ management: run.client, namespace: run.namespace, workload, servers: booted, openstack: run.openstack, image, onControlPlane: (argv) => onNode(controlPlaneNodes()[0], argv), log }));
    Object.assign(timings, { 'OCCM: HelmReleaseProxy → release deployed': r.releaseDeployedS, 'OCCM: HelmReleaseProxy → every Node initialised': r.nodesInitialisedS });
    Object.assign(figures, { occmNodes: r.nodes, occmNodeRegisteredToInitialisedS: r.perNodeS });
  }, 25 * 60_000);

  test('a Service of type LoadBalancer: OCCM makes its Octavia load balancer (listener, pool, the Nodes at the NodePort) and floating IP, sets the ingress IP, and a request from this machine to it reaches the pod through a stand-in amphora', async () => {
    needDeploy();
    await timed('LoadBalancer Service: created → first answer', async () => expectLoadBalancerServiceCarriesTraffic({ workload: await workload(), openstack: run.openstack, occmClusterName: run.namespace, amphoraImage: figures.amphoraImage as string, dockerHost: DOCKER_HOST, amphoraOf: (id) => run.hypervisor!.loadBalancers.standing.get(id), log, timings, figures }));
  }, 20 * 60_000);

  test('Gateway API with Traefik, its chart from the private chart mirror and its image built here: its Service gets an Octavia load balancer, its Gateway is programmed, and an HTTPRoute from another namespace carries a request from this machine to the pod behind it', async () => {
    needDeploy();
    const answer = (figures.serviceLoadBalancer as { answer: string }).answer;
    Object.assign(figures, await timed('Traefik: release deployed, pod Ready, HTTPRoute answers', async () => expectGatewayCarriesTraffic({ management: run.client, namespace: run.namespace, cluster: CLUSTER, workload: await workload(), backend: { namespace: 'default', service: 'lb-echo', port: 80, answer }, crdsAppliedAt, log, timings })));
  }, 30 * 60_000);

  test('Cinder CSI, from the private chart mirror with its images built here, provisions a PVC on the product\'s default StorageClass: a volume of the local Cinder with the PV\'s name, size and the cluster\'s metadata, the claim Bound (attach is past the fake hypervisor)', async () => {
    needDeploy();
    Object.assign(figures, await timed('Cinder CSI: controller running, claim Bound', () => expectCinderCsiProvisions({ management: run.client, namespace: run.namespace, workload, openstack: run.openstack, images: addons!.images, log }, timings, findings)));
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
    // recorded, not asserted: KCP reaches etcd through a port-forward to the kubelet, at the Node address OCCM set
    findings.push(`KCP EtcdClusterHealthy: ${etcdHealthy?.status} (${etcdHealthy?.reason ?? ''})`);
  });

  test('the environment\'s kubelet labels are on the worker Nodes, and every Machine runs with a nodeRef', async () => {
    needDeploy();
    await expectWorkerLabelsAndMachineNodeRefs({ nodes: await nodes(), workers: booted().filter((b) => /-md-0-/.test(b.serverName)).map((b) => b.serverName), labels: WORKER_LABELS, machines: () => list(CAPI, 'machines') });
  });

  test('CoreDNS runs and a pod on a worker reaches a Service by name, its image pulled through the registry mirror', async () => {
    needDeploy();
    const worker = booted().find((b) => /-md-0-/.test(b.serverName))!;
    await expectServiceReachedFromWorker({ workload: await workload(), nodes, worker: worker.serverName, onWorker: (argv) => onNode(worker, argv), amphoraImage: figures.amphoraImage as string, dockerHost: DOCKER_HOST, findings, log, timed });
  });

  test('node settings in effect: containerd and kubelet run with the proxy, NO_PROXY keeps the mirror and the API off it, containerd sends other pulls through it, the cloud CA is in every node\'s trust store', async () => {
    needDeploy();
    // the boots, the joins and the pulls through the registry mirror sent nothing through the proxy (pulls of images it lacks go upstream)
    expect(await proxyRequestsNotExplained(proxy!.requests, await workload(), findings)).toEqual([]);
    await expectProxyAndTrustOnNodes({ nodes: booted(), onNode, proxyUrl: proxy!.url, noProxyMust: [siteHost, run.hypervisor!.amphora!.fip, NODE_CIDR], trust: trust!, host: siteHost, dockerHost: DOCKER_HOST, log });
    const worker = run.workerNodes()[0];
    const { pull, seen } = await pullThroughProxy(proxy!, DOCKER_HOST, worker.container);
    log(`crictl pull ${PROXIED_REGISTRY}/… on ${worker.serverName}: exit ${pull.code}; the proxy saw ${JSON.stringify(seen)}`);
    expect({ pullFailed: pull.code !== 0, seen: [...new Set(seen)] }).toEqual({ pullFailed: true, seen: [`CONNECT ${PROXIED_REGISTRY}:443`] });
  }, 10 * 60_000);

  test('node settings in effect: registry mirror hosts.toml read by containerd, etcd flags in the etcd manifest', async () => {
    needDeploy();
    expectMirrorAndEtcdSettings((argv) => onNode(controlPlaneNodes()[0], [...argv]));
  });

  test('metrics-server, its chart from the private chart mirror and its image built here, answers kubectl top nodes for every Node', async () => {
    needDeploy();
    const image = addons!.images.find((i) => i.name === 'metrics-server')!.image;
    const r = await timed('metrics-server: kubectl top nodes answers', async () => expectMetricsServerAnswers({ management: run.client, namespace: run.namespace, cluster: CLUSTER, workload: await workload(), nodes: new Map(booted().map((b) => [b.serverName, b.address])), image, log, findings }));
    Object.assign(timings, { 'metrics-server: HelmReleaseProxy → release deployed': r.releaseDeployedS, 'metrics-server: stand-ins → pod Ready': r.podReadyS, 'metrics-server: stand-ins → kubectl top nodes answers': r.topAnswersS });
    figures.addonReleases = r.releases;
    findings.push(`metrics-server: ${r.approvedCsrs} kubelet-serving CSRs approved by the suite with the product's kubelet-csr-approver rules (that chart is not obtainable); releases: ${r.releases.join('; ')}`);
  }, 25 * 60_000);

  test('cert-manager, its chart from the private chart mirror and its images built here, issues a self-signed certificate for the names a Certificate asks for', async () => {
    needDeploy();
    const r = await timed('cert-manager: release deployed, Deployments available, certificate issued', async () => expectCertManagerIssues({ management: run.client, namespace: run.namespace, workload: await workload(), version: addons!.variant.addonVersions?.certManager, log, findings }));
    Object.assign(timings, r.timings);
  }, 20 * 60_000);

  test('the metadata service is closed to pods and non-root processes on the control-plane node, root reads it, IPv4 and IPv6, also after a reboot', async () => {
    needDeploy();
    // the second sample of memory per node: CoreDNS and the probe pods ran, before the reboot below
    figures.memoryMiBAfterChecks = memoryPerContainerMiB(DOCKER_HOST, [...booted().map((b) => b.container), run.hypervisor!.amphora!.container]);
    log(`memory (MiB) after the checks: ${JSON.stringify(figures.memoryMiBAfterChecks)}`);
    const cp = controlPlaneNodes()[0];
    // Ready as the kubelet started after the reboot reports it: a heartbeat since then (status times have whole seconds)
    const readySince = (since: number) => async () => ((await nodes().catch(() => [])).some((n) => n.metadata.name === cp.serverName && isReady(n) && readyHeartbeat(n) >= Math.floor(since / 1000) * 1000) ? true : undefined);
    const reboot = { dockerHost: DOCKER_HOST, container: cp.container, ready: (since: number) => timed('control-plane Node Ready after a reboot', () => waitFor('the rebooted Node Ready with a heartbeat since the reboot', 10 * 60_000, readySince(since), 3_000)) };
    const [first] = await expectMetadataBlocked({ workload: await workload(), nodeName: cp.serverName, nodeAddress: cp.address, onNode: (argv) => onNode(cp, [...argv]), probeImage: `registry.k8s.io/capi-e2e/probe:${(figures.amphoraImage as string).split(':').pop()}`, log }, reboot);
    findings.push(`metadata block on ${cp.serverName}: ${first.host.length} host probes and ${first.pods.length} probe pods, IPv6 ${first.ipv6 ? 'included (host and hostNetwork)' : 'NOT probed: the node kernel has no IPv6'}, before and after a reboot`);
  }, 30 * 60_000);

  test('MachineHealthCheck remediation with the product\'s default maxUnhealthyPercent: a worker whose stand-in stopped is replaced by a new machine whose Node joins Ready', async () => {
    needDeploy();
    // the environment leaves maxUnhealthyPercent to the product: 40 % of 2 workers, at least one
    const variantFile = parse(fs.readFileSync(path.join(run.project!.envDir, `${run.project!.envName}.yaml`), 'utf8'));
    expect(variantFile.clusters[CLUSTER].machineHealthCheck).toEqual({ unhealthyAfterMinutes: UNHEALTHY_AFTER_MINUTES });
    const { seen, finding } = await timed('MHC remediation (stand-in stopped → replacement Node Ready)', () => expectDefaultMhcRemediates(run, { cluster: CLUSTER, dockerHost: DOCKER_HOST, unhealthyAfterMinutes: UNHEALTHY_AFTER_MINUTES, log }));
    figures.remediation = seen;
    findings.push(finding);
  }, 25 * 60_000);

  test('cdktf destroy leaves nothing: the project listing as before, stand-ins, amphora and networks gone', async () => {
    needDeploy();
    deployed = false;
    await expectDestroyLeavesNothing(run, { stack: STACK, dockerHost: DOCKER_HOST, tag: TAG, figures, timed });
    await expectVolumesGone(run.openstack, figures);
  }, 35 * 60_000);
});
