/**
 * The real control loop: a workload cluster stack deployed with `cdktf deploy` while the Cluster
 * API controllers run (scripts/local-capi: CAPI core, kubeadm bootstrap and control plane, CAPO
 * with ORC, the Helm add-on provider, with their webhooks and conversion webhooks) against the
 * local kube-apiserver (scripts/local-kube) and the local OpenStack with Octavia and Cinder
 * (scripts/local-cloud). The management cluster is the local kube-apiserver, given to the
 * environment as existingManagementCluster.
 *
 * What the controllers build is read back through the OpenStack APIs. Machines get a simulated
 * data plane (support/simulated-workload.ts: a real API server per workload cluster, Nodes in
 * place of kubelets), since the fake hypervisor boots nothing.
 *
 * Skipped, with a message, when a service or the controller build is missing, unless
 * LOCAL_CAPI_REQUIRED=1 (then it fails). Runs under the shared e2e lock.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { expectClusterOpenStack, expectMachineServers, runningWorkerServers, workerServers } from './helpers/control-loop-checks';
import { controlPlaneRunning, watchOrderedUpgrade } from './helpers/control-loop-upgrade';
import { CLUSTER, WORKER_ROOT_VOLUME_GB, DISABLED_ADDON, API_ALLOWED_CIDRS, MANAGEMENT_EGRESS_CIDR, AVAILABILITY_ZONE, FIRST_VERSION, NEXT_VERSION, BASE_VARIANT } from './helpers/control-loop-variant';
import { LOCAL_CAPI_STATE, LOCAL_CLOUDS_YAML, LOCAL_KUBE_ETCD_URL, LOCAL_KUBECONFIG } from './support/lane-paths';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { projectListing, ProjectListing } from './support/project-listing';
import { SimulatedWorkloadCluster } from './support/simulated-workload';
import { getObject, kubeClientFromKubeconfig, ok, waitFor } from './support/workload-kube';
import { cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';
import { expectExit, localKubeBinDir, ROOT, tail, toolchainEnv } from './support/workload-process';
import { WorkloadProject } from './support/workload-project';

const KUBECONFIG = LOCAL_KUBECONFIG;
const CLOUDS_YAML = LOCAL_CLOUDS_YAML;
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const STACK = `local-${CLUSTER}`;
const LOCK_TIMEOUT_S = Number(process.env.CAPI_E2E_LOCK_TIMEOUT_S ?? 40 * 60);
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1';
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const CAPI = 'cluster.x-k8s.io/v1beta2';
function script(name: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}
const why = [
  script('local-kube/status').status !== 0 && 'the local kube-apiserver is not running (scripts/local-kube/start)',
  script('local-cloud/status').status !== 0 && 'the local OpenStack is not running (LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start)',
  script('local-capi/build', ['--check']).status !== 0 && 'the Cluster API controllers are not built (scripts/local-capi/build)',
  script('local-kube/build', ['--check']).status !== 0 && 'the local kube binaries (with the kubelet stand-in) are not built (scripts/local-kube/build)',
].filter(Boolean) as string[];
if (why.length > 0 && !REQUIRED) console.warn(`control-loop e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length === 0 || REQUIRED ? describe : describe.skip;
const timer = phaseTimer('control-loop e2e');
const { timings, log, timed } = timer;
const findings: string[] = [];

suite('the real control loop: CAPI, kubeadm, CAPO + ORC and CAAPH reconcile a deployed workload stack', () => {
  let lock: E2eLock | undefined;
  let project: WorkloadProject;
  let client: KubeClient;
  let openstack: OpenStackSession;
  let namespace: string;
  let before: ProjectListing;
  let sim: SimulatedWorkloadCluster | undefined;
  let runId: string;
  let deployed = false;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy phase failed; see the first failing test');
  };
  const list = async (apiVersion: string, plural: string) =>
    ok(await client.get(`/apis/${apiVersion}/namespaces/${namespace}/${plural}`), `listing ${plural}`, [200]).items as any[];
  const osc = () => getObject(client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace });

  beforeAll(async () => {
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    for (const f of ['dist/main.js']) {
      if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} does not exist: run npm run build first (npm run test:e2e does)`);
    }
    lock = await acquireE2eLock({ holder: 'control-loop e2e', timeoutSeconds: LOCK_TIMEOUT_S, log });
    const cloudName = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).cloud.name as string;
    openstack = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, cloudName));
    for (const type of ['load-balancer', 'volumev3']) {
      try {
        openstack.endpoint(type);
      } catch {
        throw new Error(`the local cloud has no ${type} service: restart it with LOCAL_CLOUD_CINDER=1 LOCAL_CLOUD_OCTAVIA=1 scripts/local-cloud/start`);
      }
    }
    before = await projectListing(openstack);
    client = kubeClientFromKubeconfig(KUBECONFIG, 'local-kube');
    // The controllers watch every namespace: a Cluster left by another run would be reconciled
    // too and its OpenStack resources would muddle this suite's before/after listing.
    const foreign = ok(await client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) {
      const names = foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ');
      throw new Error(`the local kube-apiserver already holds Cluster objects (${names}); the controllers would reconcile them too: destroy the stacks that made them, or start from empty state (scripts/local-kube/stop --wipe; scripts/local-kube/start)`);
    }

    runId = `e2e-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const started = await timed('controllers start', async () => script('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: runId }, 300_000));
    if (started.status !== 0) throw new Error(`scripts/local-capi/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
    log(`controller logs: ${path.join(LOCAL_CAPI_STATE, 'logs', runId)}`);

    project = new WorkloadProject(STACK, SOURCE_ENV, CLUSTER, { kubeconfigFile: KUBECONFIG, context: 'local-kube' }, toolchainEnv(CLOUDS_YAML));
    project.writeVariant(BASE_VARIANT);
    namespace = project.namePrefix;
    log(`project ${project.dir}`);
  }, (LOCK_TIMEOUT_S + 10 * 60) * 1000);

  afterAll(async () => {
    try {
      if (project && (await project.stateList()).length > 0) {
        log('afterAll: terraform destroy of what is left');
        const r = await project.terraform(['destroy', '-auto-approve', '-input=false', '-no-color'], 20 * 60_000);
        if (r.code !== 0) log(`afterAll: terraform destroy failed (${r.code}):\n${tail(r, 30)}`);
      }
    } finally {
      await sim?.stop().catch((e) => log(`afterAll: stopping the simulated workload: ${(e as Error).message}`));
      const stopped = script('local-capi/stop', [], process.env, 120_000);
      if (stopped.status !== 0) log(`afterAll: scripts/local-capi/stop failed: ${stopped.stderr.slice(-2000)}`);
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await lock?.release();
      writeSuiteSummary('control-loop', timer, { stack: STACK, findings, controllerLogs: runId && path.join(LOCAL_CAPI_STATE, 'logs', runId) });
    }
  });

  test('cdktf deploy is accepted by the webhooks, and CAPO makes the OpenStackCluster ready', async () => {
    const t0 = Date.now();
    const result = await timed('deploy (cdktf deploy)', () => project.cdktf(['deploy', STACK, '--auto-approve'], 20 * 60_000));
    expectExit(result, `cdktf deploy ${STACK}`);
    deployed = true;
    const ready = await timed('OpenStackCluster ready after the deploy', () =>
      waitFor('the OpenStackCluster to become ready', 10 * 60_000, async () => {
        const o = await osc();
        return o?.status?.ready === true ? o : undefined;
      }, 2_000),
    );
    timings['deploy start to OpenStackCluster ready'] = Math.round((Date.now() - t0) / 100) / 10;
    expect(ready.status.network?.id).toBeTruthy();
  });

  test('OpenStack holds what the environment file asks for: network, subnet, router, security groups, API load balancer, floating IP', async () => {
    needDeploy();
    await expectClusterOpenStack({ openstack, o: await osc(), outputs: await project.outputs(), findings, apiAllowedCidrs: API_ALLOWED_CIDRS, managementEgressCidr: MANAGEMENT_EGRESS_CIDR });
  });

  test('control plane and workers become servers with the flavor, image, server group and volumes asked for', async () => {
    needDeploy();
    sim = await timed('workload API server up', () =>
      SimulatedWorkloadCluster.start({
        management: client,
        namespace,
        cluster: CLUSTER,
        kubeBinDir: localKubeBinDir(),
        etcdUrl: LOCAL_KUBE_ETCD_URL,
        dir: path.join(LOCAL_CAPI_STATE, 'logs', runId, `workload-${CLUSTER}`),
        log,
      }),
    );
    const machines = await timed('machines running (1 control plane, 2 workers)', () =>
      waitFor('3 Machines in phase Running', 10 * 60_000, async () => {
        const ms = await list(CAPI, 'machines');
        return ms.length === 3 && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
      }, 2_000),
    );
    await expectMachineServers({ openstack, machines, namespace, cluster: CLUSTER, availabilityZone: AVAILABILITY_ZONE, firstVersion: FIRST_VERSION, workerRootVolumeGb: WORKER_ROOT_VOLUME_GB });
  });

  test('each enabled add-on gets a HelmReleaseProxy for the cluster, the disabled one none', async () => {
    needDeploy();
    const proxies = project.manifests().filter((m) => m.kind === 'HelmChartProxy').map((m) => m.name).sort();
    expect(proxies).not.toContain(DISABLED_ADDON.proxy);
    const owner = (r: any): string => r.metadata.labels?.['helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name'];
    const releases = await waitFor('a HelmReleaseProxy for every HelmChartProxy', 5 * 60_000, async () => {
      const rs = await list('addons.cluster.x-k8s.io/v1alpha1', 'helmreleaseproxies');
      return JSON.stringify([...new Set(rs.map(owner))].sort()) === JSON.stringify(proxies) ? rs : undefined;
    }, 2_000);
    // CAAPH v0.6.4 sometimes creates two for one chart and cluster (seen once in five runs): a finding, not ours
    const perProxy = proxies.map((p) => `${p}: ${releases.filter((r) => owner(r) === p).length}`);
    if (releases.length > proxies.length) findings.push(`CAAPH created more than one HelmReleaseProxy per chart: ${perProxy.join(', ')}`);
    for (const r of releases) expect(r.spec.clusterRef.name).toBe(CLUSTER);
  });

  test('after the controllers and webhooks settled, cdktf plan is empty', async () => {
    needDeploy();
    const { result, changes } = await timed('re-plan with the controllers running', () => project.plan());
    expect(changes).toEqual([]);
    expect(result.code).toBe(0);
  });

  const runningWorkers = (count: number, flavor: string) => runningWorkerServers({ openstack, client, namespace, cluster: CLUSTER }, count, flavor);

  test('worker count 2 → 3: one more machine and server', async () => {
    needDeploy();
    project.writeVariant({ ...BASE_VARIANT, workerCount: 3 });
    await project.synth();
    const { changes } = await project.plan();
    expect(changes.map((c) => c.actions.join())).toEqual(['update']);
    expectExit(await project.applyPlan(), 'terraform apply (worker count)');
    await timed('worker scale-up to 3 running', () => runningWorkers(3, 'SCS-2V-4-20s'));
  });

  test('worker flavor change: new machines of the new flavor replace the old ones, then the plan is empty', async () => {
    needDeploy();
    const old = Object.keys(await workerServers(openstack, CLUSTER));
    project.writeVariant({ ...BASE_VARIANT, workerCount: 3, workerFlavor: 'SCS-4V-8-20s' });
    await project.synth();
    await project.plan();
    expectExit(await project.applyPlan(), 'terraform apply (worker flavor)');
    const servers = await timed('worker flavor rollout (3 machines replaced)', () => runningWorkers(3, 'SCS-4V-8-20s'));
    expect(Object.keys(servers).filter((n) => old.includes(n))).toEqual([]);
    const { changes } = await project.plan();
    expect(changes).toEqual([]);
  });

  test('a second cluster of the same environment deploys beside the first, and its destroy leaves the first untouched', async () => {
    needDeploy();
    const second = 'e2f';
    const secondStack = `local-${second}`;
    const secondNamespace = `${namespace.slice(0, -CLUSTER.length)}${second}`;
    const listingBefore = await projectListing(openstack);
    const firstObjects = async () => {
      const ids: Record<string, string> = {};
      for (const [apiVersion, plural] of [[CAPI, 'clusters'], [OSC, 'openstackclusters'], ['controlplane.cluster.x-k8s.io/v1beta2', 'kubeadmcontrolplanes'], [CAPI, 'machines']]) {
        for (const o of await list(apiVersion, plural)) ids[`${plural}/${o.metadata.name}`] = `${o.metadata.uid} ${o.metadata.deletionTimestamp ?? ''}`;
      }
      return ids;
    };
    const firstBefore = await firstObjects();
    const firstServers = (await openstack.get('compute', '/servers/detail')).servers.map((s: any) => `${s.name} ${s.status}`).sort();

    project.writeVariant({ ...BASE_VARIANT, workerCount: 3, workerFlavor: 'SCS-4V-8-20s', secondCluster: { name: second, nodeCidr: '10.9.0.0/20' } });
    expectExit(await timed('second cluster: cdktf deploy', () => project.cdktf(['deploy', secondStack, '--auto-approve'], 20 * 60_000)), `cdktf deploy ${secondStack}`);
    const secondOsc = await timed('second cluster: OpenStackCluster ready', () =>
      waitFor(`the OpenStackCluster of ${second} to become ready`, 10 * 60_000, async () => {
        const o = await getObject(client, { apiVersion: OSC, kind: 'OpenStackCluster', name: second, namespace: secondNamespace });
        return o?.status?.ready === true ? o : undefined;
      }, 2_000),
    );
    expect(secondOsc.status.network.id).not.toBe((await osc()).status.network.id);

    expectExit(await timed('second cluster: cdktf destroy', () => project.cdktf(['destroy', secondStack, '--auto-approve'], 30 * 60_000)), `cdktf destroy ${secondStack}`);
    expect(await projectListing(openstack)).toEqual(listingBefore);
    expect(await firstObjects()).toEqual(firstBefore);
    expect((await openstack.get('compute', '/servers/detail')).servers.map((s: any) => `${s.name} ${s.status}`).sort()).toEqual(firstServers);
    expect((await osc()).status.ready).toBe(true);
  });

  test(`Kubernetes ${FIRST_VERSION} → ${NEXT_VERSION}: the control plane rolls first, the workers after it; no Node is ever newer than the control plane; the re-plan is empty`, async () => {
    needDeploy();
    project.writeVariant({ ...BASE_VARIANT, workerCount: 3, workerFlavor: 'SCS-4V-8-20s', kubernetesVersion: NEXT_VERSION });
    await project.synth();
    const { changes } = await project.plan();
    // the gate is replaced: its minor is what the plan shows as the phase
    expect(changes.filter((c) => c.type === 'terraform_data' && c.actions.includes('create')).map((c) => c.address)).toEqual([expect.stringMatching(/ControlPlaneUpgrade/)]);
    const seen = await timed('ordered upgrade (apply through the gate, then the workers)', () =>
      watchOrderedUpgrade({ client, namespace, cluster: CLUSTER, from: FIRST_VERSION, to: NEXT_VERSION, apply: () => project.applyPlan(), log, timeoutMs: 25 * 60_000 }),
    );
    expectExit(seen.apply, 'terraform apply (upgrade)');
    expect(seen.apply.output).toContain(`control plane: ${NEXT_VERSION} on all machines after`);
    expect(seen.workerTemplateDuringControlPlane).toEqual([FIRST_VERSION]);
    expect(seen.workersStartedS).toBeGreaterThanOrEqual(seen.controlPlaneDoneS);
    expect(seen.skewViolations).toEqual([]);
    expect(seen.controlPlaneMachinesSeen).toBe(2); // one new machine at NEXT_VERSION replaced the old one
    timings['control-plane roll-out (s)'] = seen.controlPlaneDoneS;
    timings['worker roll-out after the control plane (s)'] = Math.round((seen.workersDoneS - (seen.workersStartedS ?? 0)) * 10) / 10;
    findings.push(`upgrade ${FIRST_VERSION} → ${NEXT_VERSION}: control plane done after ${seen.controlPlaneDoneS}s, workers started at ${seen.workersStartedS}s and done at ${seen.workersDoneS}s; ${seen.polls} polls, no Node newer than the control plane`);
    const { changes: after } = await timed('re-plan after the upgrade', () => project.plan());
    expect(after).toEqual([]);
    expect((await project.outputs()).kubernetes_version).toBe(NEXT_VERSION);
  });

  test('control plane 1 → 3 machines: KCP scales up, each new member joining etcd, then the plan is empty', async () => {
    needDeploy();
    project.writeVariant({ ...BASE_VARIANT, workerCount: 3, workerFlavor: 'SCS-4V-8-20s', kubernetesVersion: NEXT_VERSION, controlPlaneCount: 3 });
    await project.synth();
    await project.plan();
    expectExit(await project.applyPlan(), 'terraform apply (control plane count)');
    const cps = await timed('control plane scale-up to 3 running', () => controlPlaneRunning(client, namespace, CLUSTER, 3));
    expect(cps.map((m) => m.spec.version)).toEqual([NEXT_VERSION, NEXT_VERSION, NEXT_VERSION]);
    const { changes } = await project.plan();
    expect(changes).toEqual([]);
  });

  test('cdktf destroy removes everything: the project listing equals the one before the deploy', async () => {
    needDeploy();
    const result = await timed('destroy (cdktf destroy)', () => project.cdktf(['destroy', STACK, '--auto-approve'], 30 * 60_000));
    expectExit(result, `cdktf destroy ${STACK}`);
    deployed = false;
    await sim?.stop();
    sim = undefined;
    const after = await projectListing(openstack);
    expect(after).toEqual(before);
    const ns = await client.get(`/api/v1/namespaces/${namespace}`);
    expect(ns.kind === 'response' ? ns.status : ns.reason).toBe(404);
    expect(await project.stateList()).toEqual([]);
  });
});
