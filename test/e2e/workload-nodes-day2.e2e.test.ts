/**
 * A minor Kubernetes upgrade on workload nodes that boot (issue 35): a workload cluster stack of 1
 * control plane and 1 worker at the environment's version (environments/local.yaml) deployed with
 * `cdktf deploy` against the real Cluster API controllers (scripts/local-capi) and the local
 * OpenStack, every server booted in a node stand-in from its user data (support/booted-cluster.ts,
 * support/workload-hypervisor.ts); then the environment's `kubernetesVersion` moves to v1.37.2 and
 * the stack is applied, as docs/day-2.md tells operators: the product's ControlPlaneUpgrade gate
 * holds the node groups until the control plane runs the new version on all its machines. Checked:
 * the control plane rolled first (from the management cluster and from the workload cluster's
 * Nodes), the real kubelets of every Node report v1.37.2 and are Ready, the API server reports it,
 * etcd's members are the control-plane machines and KCP says etcd is healthy, a re-plan is empty,
 * destroy leaves nothing. Measured: the upgrade's phases and each replacement node's times.
 *
 * @e2e-global workload-nodes-10.16 node networks of its node CIDR (10.16.0.0/20) on the test dockerd
 *
 * The servers of v1.37.2 boot the node stand-in image built at v1.37.2 (scripts/local-vm
 * build-workload-images v1.37.2; a cold build compiles Kubernetes from Go modules). OCCM and the
 * kubelet serving-certificate approver are add-ons the Helm add-on provider cannot fetch here
 * (issue 36): support/node-init-standin.ts does their part by hand (Node addresses, the
 * uninitialized taint, serving-certificate approval) and says so in the findings; without it KCP's
 * etcd checks stay Unknown and hold the control-plane roll-out.
 *
 * Skipped, with a message, unless the local kube-apiserver, the local cloud and scripts/local-vm are
 * up and the controllers build (LOCAL_*_REQUIRED=1 make that a failure). Holds the lane's e2e lock.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { kubernetesUpgradeStep } from '../../lib/config/kubernetes-upgrade';
import { BootedCluster, bootedClusterPrerequisitesMissing, isNodeReady, LOCAL_VM_SITE } from './support/booted-cluster';
import { localVmDockerHost } from './support/hypervisor-kit';
import { CACHE_DIR } from './support/lane-paths';
import { NodeInitStandIn } from './support/node-init-standin';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { serviceGate } from './support/service-gate';
import { getObject, ok, waitFor } from './support/workload-kube';
import { expectExit, ROOT } from './support/workload-process';
import { VariantChanges } from './support/workload-project';
import { ADDON_CHART_VERSIONS, CONTROL_PLANE_ANTI_AFFINITY } from './helpers/control-loop-variant';
import { watchOrderedUpgrade } from './helpers/control-loop-upgrade';
import { isControlPlaneName, NodeVersionWatch } from './helpers/node-version-watch';
import { replacementTimes } from './helpers/node-replacement-times';
import { buildWorkloadImages, etcdMemberNames } from './helpers/workload-node-checks';
import { expectDestroyLeavesNothing } from './helpers/booted-destroy';

const CLUSTER = 'e2e';
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const FROM = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).clusters[CLUSTER].kubernetesVersion as string;
const TO = 'v1.37.2';
/** Its own node CIDR: the workload-nodes suite's stand-ins (10.8.0.0/20) may run beside it on the test dockerd. */
const NODE_CIDR = '10.16.0.0/20';
const DOCKER_HOST = localVmDockerHost(CACHE_DIR);
const TAG = `wd${process.env.E2E_LANE ?? '0'}`;
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI_API = 'cluster.x-k8s.io/v1beta2';
const KCP_API = 'controlplane.cluster.x-k8s.io/v1beta2';
/**
 * One worker (the smallest cluster with both roles); the control plane's roll-out surges beside its
 * old machine on the local cloud's one hypervisor (soft anti-affinity); no OCCM / Cinder CSI chart
 * line for v1.37 is released, so the v1.36 charts stay, as docs/day-2.md tells operators.
 */
const VARIANT: VariantChanges = { workerCount: 1, nodeCidr: NODE_CIDR, controlPlaneAntiAffinity: CONTROL_PLANE_ANTI_AFFINITY, addonVersions: ADDON_CHART_VERSIONS };
const glance = (version: string) => `ubuntu-capi-image-${version}`;

const gate = serviceGate('workload-nodes-day2 e2e', ['local-kube', 'local-cloud', 'local-vm']);
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1' || process.env.LOCAL_VM_REQUIRED === '1';
const why = bootedClusterPrerequisitesMissing();
if (why.length > 0 && !REQUIRED) console.warn(`workload-nodes-day2 e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length > 0 && !REQUIRED ? describe.skip : gate.suite;
const timer = phaseTimer('workload-nodes-day2 e2e');
const { timings, log, timed } = timer;
const figures: Record<string, unknown> = {};
const findings: string[] = [];
const seconds = (ms: number) => Math.round(ms / 100) / 10;

suite(`a minor upgrade ${FROM} → ${TO} on booted workload nodes, control plane first`, () => {
  const moreNodeImages = new Map<string, string>();
  const run = new BootedCluster({ cluster: CLUSTER, sourceEnv: SOURCE_ENV, holder: 'workload-nodes-day2 e2e', tag: TAG, dockerHost: DOCKER_HOST, variant: () => VARIANT, timer, moreNodeImages });
  let nodeInit: NodeInitStandIn | undefined;
  let deployed = false;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy phase failed; see the first failing test');
  };
  // the stand-ins' loops keep their last error: logged when it changes, whatever the test waits on
  let errorLog: NodeJS.Timeout | undefined;
  const lastErrors = new Map<string, string | undefined>();
  const logErrors = () => {
    for (const [who, error] of [['hypervisor', run.hypervisor?.lastError], ['node-init stand-in', nodeInit?.lastError]] as const) {
      if (error && error !== lastErrors.get(who)) log(`${who}: ${error}`);
      lastErrors.set(who, error);
    }
  };
  const readyNodes = async (count: number, version: string, what: string, limitMs: number) =>
    waitFor(what, limitMs, async () => {
      const ns = await run.nodes().catch(() => []);
      return ns.length === count && ns.every((n) => isNodeReady(n) && n.status.nodeInfo.kubeletVersion === version) ? ns : undefined;
    }, 5_000);

  beforeAll(async () => {
    gate.requireRunning();
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    try {
      await run.setUp();
    } finally {
      figures.nodeImages = { [FROM]: run.images?.node };
    }
    nodeInit = new NodeInitStandIn({
      workload: async () => run.hypervisor?.workloadClient(),
      addressOf: (name) => (run.hypervisor ? run.booted().find((b) => b.serverName === name)?.address : undefined),
      log,
    });
    nodeInit.start();
    errorLog = setInterval(logErrors, 5_000);
  }, 90 * 60_000);

  afterAll(async () => {
    clearInterval(errorLog);
    await nodeInit?.stop();
    if (nodeInit) findings.push(`node-init stand-in (for OCCM and the serving-certificate approver, issue 36): ${nodeInit.initialised.size} Nodes given addresses and untainted, ${nodeInit.approved.size} serving certificates approved`);
    try {
      await run.tearDown(figures);
    } finally {
      writeSuiteSummary('workload-nodes-day2', timer, { findings, ...figures, controllerLogs: run.controllerLogs });
    }
  }, 30 * 60_000);

  test(`cdktf deploy: 1 control plane and 1 worker at ${FROM} boot and their Nodes are Ready`, async () => {
    const start = Date.now();
    expectExit(await timed('deploy (cdktf deploy)', () => run.project!.cdktf(['deploy', run.stack, '--auto-approve'], 20 * 60_000)), `cdktf deploy ${run.stack}`);
    deployed = true;
    await timed('OpenStackCluster ready', () => waitFor('the OpenStackCluster to become ready', 10 * 60_000, async () => getObject(run.client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace: run.namespace }).then((o) => (o?.status?.ready === true ? o : undefined)), 2_000));
    const ns = await timed('all Nodes Ready', () => readyNodes(2, FROM, `2 Ready Nodes at ${FROM}`, 30 * 60_000));
    timings['deploy start → all Nodes Ready'] = seconds(Date.now() - start);
    expect(ns.map((n) => isControlPlaneName(n.metadata.name)).sort()).toEqual([false, true]);
    const machines = await waitFor('2 Machines Running with nodeRefs', 5 * 60_000, async () => {
      const ms = await run.list(CAPI_API, 'machines');
      return ms.length === 2 && ms.every((m) => m.status?.phase === 'Running' && m.status?.nodeRef?.name) ? ms : undefined;
    }, 3_000);
    expect(machines.map((m) => m.status.nodeRef.name).sort()).toEqual(ns.map((n) => n.metadata.name).sort());
    for (const b of run.booted()) expect({ node: b.serverName, image: b.image }).toEqual({ node: b.serverName, image: run.images!.node });
  }, 60 * 60_000);

  test(`kubernetesVersion ${FROM} → ${TO} through the ordered gate: the control plane's real kubelet reports ${TO} first, the worker's after it; every Node Ready at ${TO}, etcd healthy`, async () => {
    needDeploy();
    expect(kubernetesUpgradeStep(FROM, TO).kind).toBe('minor');
    // the upgrade target's node image (built ahead by .ci/run; here a cold build overlaps the deploy)
    const { node } = await timed(`node images ${TO} (build-workload-images ${TO})`, async () => buildWorkloadImages(DOCKER_HOST, TO));
    moreNodeImages.set(glance(TO), node);
    figures.nodeImages = { [FROM]: run.images?.node, [TO]: node };
    const before = new Set((await run.nodes()).map((n) => n.metadata.name as string));
    run.project!.writeVariant({ registryMirrors: JSON.parse(fs.readFileSync(LOCAL_VM_SITE, 'utf8')).registryMirrors, ...VARIANT, kubernetesVersion: TO });
    await timed('synth and plan of the upgrade', async () => run.project!.synth());
    const { changes } = await run.project!.plan();
    // the gate is replaced (its minor is the phase the plan shows); the KCP and the MachineDeployment are updated
    expect(changes.filter((c) => c.type === 'terraform_data' && c.actions.includes('create')).map((c) => c.address)).toEqual([expect.stringMatching(/ControlPlaneUpgrade/)]);
    const watch = new NodeVersionWatch(() => run.workload()).start();
    const started = Date.now();
    let seen: Awaited<ReturnType<typeof watchOrderedUpgrade>>;
    let ns: any[];
    try {
      seen = await timed('upgrade (apply through the gate, then the worker)', () =>
        watchOrderedUpgrade({ client: run.client, namespace: run.namespace, cluster: CLUSTER, from: FROM, to: TO, apply: () => run.project!.applyPlan('e2e.tfplan', 70 * 60_000), log, timeoutMs: 75 * 60_000 }),
      );
      ns = await readyNodes(2, TO, `2 Ready Nodes at ${TO}`, 10 * 60_000);
      // the watch sees each replaced Node go (the Machines are done a poll or two before the Node objects are)
      await waitFor('the Node watch to see every old Node gone', 2 * 60_000, async () => ([...before].every((name) => watch.records.get(name)?.goneAt !== undefined) ? true : undefined), 1_000);
    } finally {
      await watch.stop();
    }
    figures.upgradeNodeTimeline = watch.timeline();
    log(`upgrade: Nodes (s since the apply started): ${JSON.stringify(figures.upgradeNodeTimeline)}`);
    expectExit(seen.apply, 'terraform apply (upgrade)');
    // the gate held the node groups until the control plane ran TO on all its machines
    expect(seen.apply.output).toContain(`control plane: ${TO} on all machines after`);
    expect(seen.workerTemplateDuringControlPlane).toEqual([FROM]);
    expect(seen.skewViolations).toEqual([]);
    // from inside the workload cluster: every Node is new and of TO, the control plane's was Ready before the worker's appeared
    expect(watch.orderProblems(TO)).toEqual([]);
    expect(ns.filter((n) => before.has(n.metadata.name)).map((n) => n.metadata.name)).toEqual([]);
    expect(ns.map((n) => isControlPlaneName(n.metadata.name)).sort()).toEqual([false, true]);
    // on the nodes: each stand-in boots the TO image and its kubelet binary is TO
    for (const b of run.booted()) {
      expect({ node: b.serverName, image: b.image, kubelet: run.onNode(b, ['kubelet', '--version']).out.trim() }).toEqual({ node: b.serverName, image: moreNodeImages.get(glance(TO)), kubelet: `Kubernetes ${TO}` });
    }
    const version = ok(await (await run.workload()).get('/version'), 'reading the workload API server version', [200]);
    expect(version.gitVersion).toBe(TO);
    // etcd: its members are the control-plane machines (the old one's member removed), and KCP says it is healthy
    const cp = run.controlPlaneNodes()[0];
    const cpMachines = (await run.list(CAPI_API, 'machines')).filter((m) => m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined);
    expect(etcdMemberNames((argv) => run.onNode(cp, argv), log)).toEqual(cpMachines.map((m) => m.status?.nodeRef?.name).sort());
    const etcdHealthy = await waitFor('KCP EtcdClusterHealthy True', 3 * 60_000, async () => {
      const kcp = (await run.list(KCP_API, 'kubeadmcontrolplanes'))[0];
      const c = (kcp?.status?.conditions ?? []).find((x: any) => x.type === 'EtcdClusterHealthy');
      return c?.status === 'True' ? c : undefined;
    }, 3_000);
    expect(etcdHealthy.status).toBe('True');

    timings['upgrade: apply start → control plane done'] = seen.controlPlaneDoneS;
    timings['upgrade: apply start → worker template moved'] = seen.workersStartedS ?? -1;
    timings['upgrade: apply start → all workers done'] = seen.workersDoneS;
    timings['upgrade: apply start → terraform apply exited'] = seconds(seen.apply.seconds * 1000);
    const machines = await run.list(CAPI_API, 'machines');
    figures.replacements = replacementTimes({ startedAt: started, watch, before, booted: run.booted(), machines });
    log(`upgrade: replacements (s since the apply started): ${JSON.stringify(figures.replacements)}`);
    findings.push(`upgrade ${FROM} → ${TO}: control plane done after ${seen.controlPlaneDoneS}s, worker template moved at ${seen.workersStartedS}s, worker done at ${seen.workersDoneS}s (apply ${seen.apply.seconds.toFixed(0)}s); ${seen.polls} polls, no Node newer than the control plane`);
    const { changes: after } = await timed('re-plan after the upgrade', () => run.project!.plan());
    expect(after).toEqual([]);
  }, 90 * 60_000);

  test('cdktf destroy leaves nothing: the project listing as before, stand-ins, amphora and networks gone', async () => {
    needDeploy();
    deployed = false;
    await expectDestroyLeavesNothing(run, { stack: run.stack, dockerHost: DOCKER_HOST, tag: TAG, figures, timed, beforeHypervisorStops: async () => nodeInit?.stop() });
  }, 35 * 60_000);
});
