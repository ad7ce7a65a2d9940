/**
 * The management VM's bootstrap, run for real (issue 25): `cdktf deploy` of the management stack
 * on the local OpenStack with the readiness gate on; the server's user data — Terraform's, with the
 * CA it minted — boots a Debian 12 stand-in of the VM through cloud-init (the seam:
 * support/standin-hypervisor.ts plays the fake hypervisor). Without internet: images from the test
 * registry through registryMirrors, kind/kubectl/clusterctl and the provider manifests from an
 * HTTPS site mirror through management.tools and management.providerManifests (scripts/local-vm/start),
 * whose private CA the VM trusts through management.trustedCaCertificateFile.
 *
 * @e2e-global local-vm the stand-in container, its Docker networks and the site's registry and mirror
 *
 * Then: the deploy ends only when the readiness gate has seen the management cluster through its
 * published address; the admin certificate Terraform minted reads it; clusterctl init installed
 * cert-manager and the five providers at the pinned versions from the site, every Deployment runs
 * as real pods; the metadata block holds; a workload stack's objects pass the providers' webhooks
 * in the stand-in; destroying both leaves the project as it was and the stand-in gone.
 *
 * What the pods cannot reach: the local OpenStack (its APIs listen on this machine's loopback and
 * its catalog names 127.0.0.1), so CAPO gets a watch filter no object carries — its webhooks
 * serve, its controllers leave the workload objects alone (the control-loop suite proves
 * reconciliation). Skipped unless the local cloud and scripts/local-vm are up (LOCAL_VM_REQUIRED=1,
 * LOCAL_CLOUD_REQUIRED=1 make that a failure). Holds the shared e2e lock.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { manifestSources } from '../../lib/config/provider-manifests';
import { mirroredToolUrl } from '../../lib/config/management-tools';
import { expectSuccess } from './helpers/management-cloud-checks';
import { admissionCounts, bootstrapStepSeconds, bootstrapTimeline, containerRestarts, RestartedContainer, restartedContainers, serviceDialTimeout, unavailableDeployments, webhookCallsBetween } from './helpers/bootstrap-checks';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { AppDir, buildAppOnce, CACHE_DIR, cdktf, LOCAL_CLOUDS_YAML, makeAppDir, runWithToolchain, stateResourceCount, tail, writeLocalEnvironment } from './support/management-cloud';
import { diffListings, listProjectResources, ListingEntry, OpenStackApi, readCloudEntry } from './support/openstack-api';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { serviceGate } from './support/service-gate';
import { inStandin, localVm, localVmDockerHost, StandinHypervisor } from './support/standin-hypervisor';
import { localKubeBinDir, ROOT } from './support/workload-process';

const PREFIX = 'e2evm';
const MANAGEMENT = 'local-management';
const WORKLOAD = 'local-e2e';
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'bootstrap');
const SITE = path.join(CACHE_DIR, 'local-vm-site.json');
const DOCKER_HOST = localVmDockerHost(CACHE_DIR);
/** A watch filter no object carries: CAPO's webhooks serve, its controllers ignore the objects. */
const CAPO_WATCH_FILTER = 'bootstrap-e2e-no-openstack';

const { suite, requireRunning } = serviceGate('bootstrap e2e', ['local-cloud', 'local-vm']);
const timer = phaseTimer('bootstrap e2e');
const { timings, log, timed } = timer;
const figures: Record<string, unknown> = {};

suite('the management VM bootstraps for real from its user data (stand-in VM, local OpenStack, no internet)', () => {
  let lock: E2eLock | undefined;
  let app: AppDir;
  let api: OpenStackApi;
  let hypervisor: StandinHypervisor;
  let before: ListingEntry[] = [];
  let kubeconfig: string;
  let deployed = false;
  let bootstrapLog = '';
  const run = (args: string[], logName: string, timeoutSeconds = 1500) =>
    cdktf(args, { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(app.dir, 'logs'), timeoutSeconds });
  const kubectl = (...args: string[]) => {
    const r = spawnSync(path.join(localKubeBinDir(), 'kubectl'), ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', timeout: 300_000, maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: exit ${r.status ?? r.error?.message}: ${(r.stderr ?? '').slice(-800)}`);
    return r.stdout;
  };
  const needDeploy = () => {
    if (!deployed) throw new Error('the management stack is not deployed (the first test failed)');
  };
  /**
   * Waits (bounded) until every Deployment is Available and returns those that are not. The gate
   * saw them all Available; a controller starved of CPU on a loaded machine can miss its
   * leader-election renewal and restart afterwards: the restarts are logged, not hidden.
   */
  const deploymentsNotAvailableAfter = async (seconds: number) => {
    const deadline = Date.now() + seconds * 1000;
    const unavailable = () => unavailableDeployments(JSON.parse(kubectl('get', 'deployments', '-A', '-o', 'json')).items);
    let waiting = unavailable();
    while (waiting.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5000));
      waiting = unavailable();
    }
    const restarts = containerRestarts(JSON.parse(kubectl('get', 'pods', '-A', '-o', 'json')).items);
    if (restarts.length > 0) log(`containers that restarted since the bootstrap: ${restarts.join(', ')}`);
    return waiting;
  };

  /** Restarted containers whose previous run ended on a connect timeout to a Service address. */
  const controllersThatStartedTooEarly = () => {
    const previousLog = (c: RestartedContainer) =>
      spawnSync(path.join(localKubeBinDir(), 'kubectl'), ['--kubeconfig', kubeconfig, 'logs', '-n', c.namespace, c.pod, '-c', c.container, '--previous'], { encoding: 'utf8', timeout: 60_000 }).stdout ?? '';
    return restartedContainers(JSON.parse(kubectl('get', 'pods', '-A', '-o', 'json')).items).flatMap((c) => {
      const line = serviceDialTimeout(previousLog(c));
      return line ? [`${c.namespace}/${c.pod}/${c.container}: ${line.slice(0, 300)}`] : [];
    });
  };

  beforeAll(async () => {
    requireRunning();
    lock = await acquireE2eLock({ holder: 'bootstrap e2e' });
    buildAppOnce();
    const site = JSON.parse(fs.readFileSync(SITE, 'utf8'));
    api = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-e2e'));
    const admin = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, 'local-admin'));
    fs.rmSync(SUITE_DIR, { recursive: true, force: true });
    app = makeAppDir(SUITE_DIR);
    kubeconfig = path.join(app.dir, 'management.kubeconfig');
    writeLocalEnvironment(app, [
      [['prefix'], PREFIX],
      [['management', 'waitForReady'], true],
      [['management', 'readyTimeoutMinutes'], 15],
      // this machine's address on the stand-in network, where the readiness gate and Terraform connect from
      [['management', 'apiAllowedCidrs'], ['172.30.251.1/32']],
      [['management', 'tools'], site.management.tools],
      [['management', 'providerManifests'], site.management.providerManifests],
      // the site mirror's private CA: the stand-in's image does not trust it, the user data does
      [['management', 'trustedCaCertificateFile'], site.siteCa],
      [['registryMirrors'], site.registryMirrors],
    ]);
    before = await listProjectResources(api);
    hypervisor = new StandinHypervisor(admin, `${PREFIX}-local-mgmt`, site, app.dir, DOCKER_HOST, log);
    hypervisor.start();
  }, 45 * 60_000);

  afterAll(async () => {
    try {
      for (const stack of [WORKLOAD, MANAGEMENT]) {
        const state = path.join(app.dir, `terraform.${stack}.tfstate`);
        if (app && stateResourceCount(state) > 0) {
          const r = await run(['destroy', stack, '--auto-approve', '--ignore-missing-stack-dependencies'], `destroy-leftovers-${stack}`, 1200);
          if (r.code !== 0) console.warn(`bootstrap e2e: destroy of ${stack} failed: ${tail(r, 20)}`);
        }
      }
    } finally {
      hypervisor?.stop();
      writeSuiteSummary('bootstrap', timer, figures);
      await lock?.release();
    }
  }, 45 * 60_000);

  test('cdktf deploy of the management stack returns once the VM it booted serves Cluster API', async () => {
    const result = await timed('deploy management (cdktf deploy → ready)', () => run(['deploy', MANAGEMENT, '--auto-approve'], 'deploy-management'));
    deployed = stateResourceCount(app.stateFile) > 0;
    expect(hypervisor.booted).toBeDefined();
    expectSuccess(result, `cdktf deploy (hypervisor: ${hypervisor.lastError ?? 'ok'})`);
    // clusterctl-init marks the cluster Ready (what the gate waits for) a moment before the
    // bootstrap logs the step's end: read the log once that line is there (bounded)
    const readLog = () => inStandin(DOCKER_HOST, ['cat', '/var/log/capi-bootstrap.log']).out;
    bootstrapLog = readLog();
    for (let i = 0; i < 60 && !('clusterctl-init' in bootstrapStepSeconds(bootstrapLog)); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      bootstrapLog = readLog();
    }
    const steps = bootstrapStepSeconds(bootstrapLog);
    const timeline = bootstrapTimeline(bootstrapLog);
    Object.assign(figures, { bootstrapSteps: steps, bootstrapTimeline: timeline, standinAddress: hypervisor.booted!.address });
    timings['stand-in start → deploy done'] = Math.round((Date.now() - hypervisor.booted!.at) / 100) / 10;
    log(`bootstrap steps (s): ${JSON.stringify(steps)}`);
    log(`bootstrap timeline (s after it started, start-end): ${Object.entries(timeline).map(([s, t]) => `${s} ${t.start}-${t.end ?? '?'}`).join(', ')}`);
    // docker, its block and the node image beside the verified downloads; then kind, then clusterctl
    expect(Object.keys(steps).sort()).toEqual(['clusterctl-init', 'docker', 'download-tools', 'fetch-manifests', 'kind-cluster', 'metadata-block', 'metadata-block-early', 'pull-node-image']);
    expect(timeline['metadata-block'].start).toBeGreaterThanOrEqual(timeline.docker.end!);
    expect(timeline['pull-node-image'].start).toBeGreaterThanOrEqual(timeline['metadata-block'].end!);
    expect(timeline['kind-cluster'].start).toBeGreaterThanOrEqual(Math.max(timeline['pull-node-image'].end!, timeline['fetch-manifests'].end!));
    const serviceNetwork = /\[kind-cluster\] Service network up after (\d+)s/.exec(bootstrapLog);
    expect(serviceNetwork).not.toBeNull();
    log(`kube-proxy routed the API server's Service address ${serviceNetwork![1]}s after the node was Ready`);
    expect(inStandin(DOCKER_HOST, ['cloud-init', 'status']).out).toContain('status: done');
    // the site's CA reached the system trust store through the user data (cloud-init's ca_certs)
    const siteCaBody = fs.readFileSync(JSON.parse(fs.readFileSync(SITE, 'utf8')).siteCa, 'utf8').split('\n')[1];
    expect(inStandin(DOCKER_HOST, ['grep', '-c', '-F', siteCaBody, '/etc/ssl/certs/ca-certificates.crt']).out.trim()).toBe('1');
    // the gate reached the published address: its output names the management API it waited for
    expect(result.output).toMatch(/management cluster .*ready|ready.*management/i);
  });

  test('the admin certificate Terraform minted reads the cluster through the published address; providers at the pinned versions, from the site', async () => {
    needDeploy();
    const cli = await runWithToolchain(['node', path.join(ROOT, 'dist', 'bin', 'capi-openstack.js'), 'kubeconfig', 'local', '--out', kubeconfig], {
      cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName: 'kubeconfig', logDir: path.join(app.dir, 'logs'),
    });
    expectSuccess(cli, 'capi-openstack kubeconfig local');
    expect(fs.readFileSync(kubeconfig, 'utf8')).toContain(`server: https://${hypervisor.booted!.address}:6443`);
    const site = JSON.parse(fs.readFileSync(SITE, 'utf8'));
    const providers = JSON.parse(kubectl('get', 'providers.clusterctl.cluster.x-k8s.io', '-A', '-o', 'json')).items.map((p: any) => `${p.metadata.name} ${p.version}`);
    const v = JSON.parse(kubectl('get', 'configmap', 'capi-bootstrap-status', '-n', 'kube-system', '-o', 'json')).data;
    expect(providers.sort()).toEqual([`addon-helm ${v.caaph}`, `bootstrap-kubeadm ${v.clusterApi}`, `cluster-api ${v.clusterApi}`, `control-plane-kubeadm ${v.clusterApi}`, `infrastructure-openstack ${v.capo}`]);
    expect(v).toMatchObject({ phase: 'Ready', kindNodeImage: site.management.tools.kindNodeImage });
    expect(await deploymentsNotAvailableAfter(300)).toEqual([]);
    // create-kind-cluster.sh waits for kube-proxy to route the API server's Service address: no
    // controller may have exited because it could not connect to it (ORC and cert-manager did)
    expect(controllersThatStartedTooEarly()).toEqual([]);
    const deployments = JSON.parse(kubectl('get', 'deployments', '-A', '-o', 'json')).items;
    const images = deployments.map((d: any) => d.spec.template.spec.containers[0].image).sort();
    expect(images).toEqual(expect.arrayContaining([`quay.io/jetstack/cert-manager-controller:${site.management.providerManifests.certManagerVersion}`, `registry.k8s.io/cluster-api/cluster-api-controller:${v.clusterApi}`]));
    // every controller's image was pre-pulled into the node while kind started (the manifests name them)
    const controllerImages = deployments.filter((d: any) => !['kube-system', 'local-path-storage'].includes(d.metadata.namespace)).map((d: any) => d.spec.template.spec.containers[0].image);
    expect(controllerImages.filter((i: string) => !new RegExp(`\\[kind-cluster\\] pre-pulled ${i.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in \\d+s`).test(bootstrapLog))).toEqual([]);
    const pulled = JSON.parse(kubectl('get', 'events', '-A', '--field-selector', 'reason=Pulled', '-o', 'json')).items.filter((e: any) => !['kube-system', 'local-path-storage'].includes(e.metadata.namespace));
    figures.controllerPulls = { alreadyPresent: pulled.filter((e: any) => /already present/.test(e.message)).length, pulledByKubelet: pulled.filter((e: any) => /Successfully pulled/.test(e.message)).length };
    log(`controller pods whose image was in place / pulled by the kubelet: ${JSON.stringify(figures.controllerPulls)}`);
    // every manifest and tool came from the site mirror
    const served = fs.readFileSync(path.join(CACHE_DIR, 'local-vm-file-server', 'server.log'), 'utf8');
    const versions = { clusterApi: v.clusterApi, capo: v.capo, caaph: v.caaph, orc: v.orc, certManager: site.management.providerManifests.certManagerVersion };
    const wanted = [
      ...manifestSources(versions).map((s) => `/providers/${s.path}`),
      ...(['kind', 'kubectl', 'clusterctl'] as const).map((t) => new URL(mirroredToolUrl(site.management.tools.baseUrl, t, site.management.tools[t].version)).pathname),
    ];
    expect(wanted.filter((p) => !served.includes(`GET ${p} 200`))).toEqual([]);
    const memory = spawnSync('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', 'lvm-vm'], { env: { ...process.env, DOCKER_HOST }, encoding: 'utf8' }).stdout.trim();
    figures.standinMemory = memory;
    log(`stand-in memory with the management cluster: ${memory}`);
  });

  test('the metadata block holds: root on the VM reaches 169.254.169.254, containers, the kind node and pods do not', () => {
    needDeploy();
    const r = localVm(DOCKER_HOST, 'prove-metadata-block', ['--as-installed']);
    if (r.code !== 0) throw new Error(`prove-metadata-block --as-installed: exit ${r.code}:\n${r.out.slice(-3000)}`);
    log(r.out.split('\n').filter((l) => / (reach|block)$/.test(l)).join('; '));
    expect(r.out).toMatch(/root on the stand-in -> metadata\s+reach/);
    expect(r.out).toMatch(/pod -> metadata\s+block/);
  });

  test('a workload stack applies its objects through the webhooks of the controllers in the stand-in, and goes again', async () => {
    needDeploy();
    kubectl('-n', 'capo-system', 'patch', 'deployment', 'capo-controller-manager', '--type=json', '-p',
      JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: `--watch-filter=${CAPO_WATCH_FILTER}` }]));
    kubectl('-n', 'capo-system', 'rollout', 'status', 'deployment/capo-controller-manager', '--timeout=180s');
    // every webhook the apply passes must serve: their controllers Available first (bounded)
    expect(await deploymentsNotAvailableAfter(300)).toEqual([]);
    const beforeCalls = admissionCounts(kubectl('get', '--raw', '/metrics'));
    const deploy = await timed('deploy workload stack', () => run(['deploy', WORKLOAD, '--auto-approve', '--ignore-missing-stack-dependencies'], 'deploy-workload', 1200));
    expectSuccess(deploy, 'cdktf deploy of the workload stack');
    const calls = webhookCallsBetween(beforeCalls, admissionCounts(kubectl('get', '--raw', '/metrics')));
    figures.webhookCalls = calls;
    log(`admission webhook calls during the workload apply: ${JSON.stringify(calls)}`);
    // one validating webhook of each provider: core, kubeadm control plane and bootstrap, CAPO, CAAPH
    const webhooks = [
      'validation.cluster.cluster.x-k8s.io',
      'validation.kubeadmcontrolplane.controlplane.cluster.x-k8s.io',
      'validation.kubeadmconfigtemplate.bootstrap.cluster.x-k8s.io',
      'validation.openstackcluster.infrastructure.cluster.x-k8s.io',
      'validation.openstackmachinetemplate.infrastructure.cluster.x-k8s.io',
      'vhelmchartproxy.kb.io',
    ];
    expect(webhooks.filter((w) => !(calls[w] > 0))).toEqual([]);
    const clusters = JSON.parse(kubectl('get', 'clusters.cluster.x-k8s.io', '-A', '-o', 'json')).items;
    expect(clusters.map((c: any) => c.metadata.name)).toEqual([expect.stringContaining('e2e')]);
    const destroy = await timed('destroy workload stack', () => run(['destroy', WORKLOAD, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-workload', 1200));
    expectSuccess(destroy, 'cdktf destroy of the workload stack');
    expect(JSON.parse(kubectl('get', 'clusters.cluster.x-k8s.io', '-A', '-o', 'json')).items).toEqual([]);
  });

  test('destroy of the management stack leaves the project as it was and the stand-in gone', async () => {
    needDeploy();
    const result = await timed('destroy management', () => run(['destroy', MANAGEMENT, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-management', 1200));
    expectSuccess(result, 'cdktf destroy');
    deployed = false;
    const deadline = Date.now() + 60_000;
    while (hypervisor.booted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
    expect(hypervisor.booted).toBeUndefined();
    expect(inStandin(DOCKER_HOST, ['true']).code).not.toBe(0);
    expect(diffListings(before, await listProjectResources(api))).toEqual({ added: [], removed: [] });
  });
});
