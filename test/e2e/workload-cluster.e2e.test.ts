/**
 * A workload cluster stack (`local-e2e`: environments/local.yaml, cluster `e2e`) deployed for real:
 * Kubernetes objects to the local kube-apiserver (scripts/local-kube, the CAPI/CAPO/CAAPH CRDs,
 * no controllers), OpenStack resources to the local OpenStack (scripts/local-cloud).
 *
 * The environment file is a variant of environments/local.yaml in a temp project that brings its
 * own management cluster (existingManagementCluster = the local kube's kubeconfig); the app is the
 * compiled app of this repository (`npm run build` first; `npm run test:e2e` does).
 *
 * Phases (each timed): `cdktf deploy` → objects and OpenStack resources checked → re-plan empty →
 * the CAPI controllers' and webhooks' writes simulated → re-plan still empty → the kubeconfig CLI →
 * worker count change (in-place) → add-on disabled (its HelmChartProxy goes) → destroy (the Cluster
 * first; Terraform waits while the Cluster finalizer is held; credentials last) → nothing left.
 *
 * Skipped, with a message, when the local kube or the local cloud is not running, unless
 * LOCAL_KUBE_REQUIRED=1 / LOCAL_CLOUD_REQUIRED=1 (then it fails). Runs under the exclusive lock
 * /tmp/capi-e2e.lock (flock) shared by every suite using those services.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import {
  CLUSTER_FINALIZER,
  deleteNamespaceAndWait,
  getObject,
  kubeClientFromKubeconfig,
  objectLabel,
  ok,
  plural,
  releaseClusterFinalizers,
  simulateCapiControllers,
  waitFor,
} from './support/workload-kube';
import { cloudEntry, cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';
import { CSI_KEY, LocalCloud } from './support/cleanup-cloud';
import { probeLocalCloud, readPasswordCloud } from './support/local-cloud-probe';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { phaseTimer } from './support/phase-timer';
import { expectExit, newestSourceMtime, ROOT, run, start, tail, toolchainEnv } from './support/workload-process';
import { WorkloadProject } from './support/workload-project';

const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const KUBECONFIG = path.join(process.env.LOCAL_KUBE_STATE ?? path.join(CACHE, 'local-kube'), 'kubeconfig');
const CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE ?? path.join(process.env.LOCAL_CLOUD_STATE ?? path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const KUBE_CONTEXT = 'local-kube';
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const CLUSTER = 'e2e';
const STACK = `local-${CLUSTER}`;
/** Bound of the wait for the shared e2e lock (the before-all hook gets 5 minutes more, so the lock's message wins). */
const LOCK_TIMEOUT_S = Number(process.env.CAPI_E2E_LOCK_TIMEOUT_S ?? 40 * 60);

function serviceUp(script: string): { up: boolean; detail: string } {
  const r = spawnSync(path.join(ROOT, 'scripts', script, 'status'), [], { encoding: 'utf8', timeout: 60_000 });
  return { up: r.status === 0, detail: `scripts/${script}/status exited ${r.status ?? r.signal}` };
}
const kube = serviceUp('local-kube');
const cloud = serviceUp('local-cloud');
const KUBE_REQUIRED = process.env.LOCAL_KUBE_REQUIRED === '1';
const CLOUD_REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const missing = [
  !kube.up && !KUBE_REQUIRED && `the local kube-apiserver is not running (${kube.detail}; start it with scripts/local-kube/start; LOCAL_KUBE_REQUIRED=1 makes this a failure)`,
  !cloud.up && !CLOUD_REQUIRED && `the local OpenStack is not running (${cloud.detail}; start it with scripts/local-cloud/start; LOCAL_CLOUD_REQUIRED=1 makes this a failure)`,
].filter(Boolean);
if (missing.length > 0) console.warn(`workload-cluster e2e skipped: ${missing.join('; ')}`);
const suite = missing.length === 0 ? describe : describe.skip;

/** Seconds per phase, printed at the end and written to <tmp>/capi-e2e-results/workload-cluster.json. */
const { timings, log, timed } = phaseTimer('workload e2e');
const notes: string[] = [];

suite('workload cluster stack against the local kube-apiserver and the local OpenStack', () => {
  let lock: E2eLock | undefined;
  let project: WorkloadProject;
  let client: KubeClient;
  let openstack: OpenStackSession;
  let namespace: string;
  let namePrefix: string;
  /** The clouds.yaml entry environments/local.yaml names. */
  let cloudName: string;
  let outputs: Record<string, any>;
  let deployed = false;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy phase failed; see the first failing test');
  };

  /** Cloud resources of the cluster by name (also leftovers of an interrupted run). */
  async function cloudResources() {
    const creds = await openstack.applicationCredentials(namePrefix);
    const fips = (await openstack.floatingIps(`description=${encodeURIComponent(`${namePrefix} Kubernetes API`)}`)).filter((f) => f.description === `${namePrefix} Kubernetes API`);
    const groups = (await openstack.serverGroups()).filter((g) => g.name.startsWith(`${namePrefix}-`));
    return { creds, fips, groups };
  }

  /** Removes whatever a failed or interrupted run left (by name), after releasing the Cluster finalizer. */
  async function removeLeftovers(when: string): Promise<string[]> {
    const removed: string[] = [];
    for (const c of await releaseClusterFinalizers(client, namespace)) removed.push(`finalizer of Cluster ${c}`);
    const ns = await client.get(`/api/v1/namespaces/${namespace}`);
    if (ns.kind === 'response' && ns.status === 200) {
      await deleteNamespaceAndWait(client, namespace);
      removed.push(`namespace ${namespace}`);
    }
    const { creds, fips, groups } = await cloudResources();
    for (const c of creds) {
      await openstack.deleteIfPresent('identity', `/v3/users/${openstack.userId}/application_credentials/${c.id}`);
      removed.push(`application credential ${c.name}`);
    }
    for (const f of fips) {
      await openstack.deleteIfPresent('network', `/v2.0/floatingips/${f.id}`);
      removed.push(`floating IP ${f.floating_ip_address}`);
    }
    for (const g of groups) {
      await openstack.deleteIfPresent('compute', `/os-server-groups/${g.id}`);
      removed.push(`server group ${g.name}`);
    }
    if (removed.length > 0) log(`${when}: removed ${removed.join(', ')}`);
    return removed;
  }

  beforeAll(async () => {
    if (!kube.up) throw new Error(`LOCAL_KUBE_REQUIRED=1 but the local kube-apiserver is not running (${kube.detail}): run scripts/local-kube/start`);
    if (!cloud.up) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the local OpenStack is not running (${cloud.detail}): run scripts/local-cloud/start`);
    for (const f of ['dist/main.js', 'dist/bin/capi-openstack.js']) {
      if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} does not exist: run npm run build first (npm run test:e2e does)`);
    }
    const newest = newestSourceMtime([path.join(ROOT, 'lib')]);
    if (newest.mtimeMs > fs.statSync(path.join(ROOT, 'dist', 'main.js')).mtimeMs) {
      log(`warning: ${path.relative(ROOT, newest.file)} is newer than dist/main.js; the test runs the compiled app (npm run build)`);
    }
    if (!fs.existsSync(SOURCE_ENV)) throw new Error(`${SOURCE_ENV} does not exist: the suite deploys its cluster "${CLUSTER}"`);
    const lockStart = Date.now();
    lock = await acquireE2eLock({ holder: 'workload e2e', timeoutSeconds: LOCK_TIMEOUT_S, log });
    timings['lock wait'] = Math.round((Date.now() - lockStart) / 100) / 10;

    const env = toolchainEnv(CLOUDS_YAML);
    project = new WorkloadProject(STACK, SOURCE_ENV, CLUSTER, { kubeconfigFile: KUBECONFIG, context: KUBE_CONTEXT }, env);
    log(`project ${project.dir}`);
    namePrefix = project.namePrefix;
    namespace = namePrefix; // clusterNamespace(): <prefix>-<env>-<cluster>
    client = kubeClientFromKubeconfig(KUBECONFIG, KUBE_CONTEXT);
    ok(await client.get('/readyz'), 'local kube-apiserver /readyz');
    cloudName = parse(fs.readFileSync(SOURCE_ENV, 'utf8')).cloud.name as string;
    openstack = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, cloudName));
    await removeLeftovers('before the run');
  }, (LOCK_TIMEOUT_S + 5 * 60) * 1000);

  afterAll(async () => {
    try {
      if (project && client && openstack) {
        // a failed destroy phase leaves the Cluster finalizer held: release it, then let Terraform finish
        await releaseClusterFinalizers(client, namespace).catch((e) => log(`afterAll: ${(e as Error).message}`));
        const state = await project.stateList();
        if (state.length > 0) {
          log(`afterAll: ${state.length} resources still in the state, terraform destroy`);
          const r = await project.terraform(['destroy', '-auto-approve', '-input=false', '-no-color'], 10 * 60_000);
          if (r.code !== 0) log(`afterAll: terraform destroy failed (${r.code}):\n${tail(r, 30)}`);
        }
        await removeLeftovers('afterAll').catch((e) => log(`afterAll: removing leftovers failed: ${(e as Error).message}`));
      }
    } finally {
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await lock?.release();
      const summary = { suite: 'workload-cluster', stack: STACK, secondsPerPhase: timings, notes, at: new Date().toISOString() };
      const dir = path.join(os.tmpdir(), 'capi-e2e-results');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'workload-cluster.json'), `${JSON.stringify(summary, null, 2)}\n`);
      log(`timings (s): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join(', ')} → ${path.join(dir, 'workload-cluster.json')}`);
    }
  });

  test('cdktf deploy: the API server accepts every object of the stack', async () => {
    const result = await timed('deploy (cdktf deploy)', () => project.cdktf(['deploy', STACK, '--auto-approve']));
    expectExit(result, `cdktf deploy ${STACK}`);
    expect(result.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    outputs = await project.outputs();
    expect(outputs.namespace).toBe(namespace);
    deployed = true;
    // the relative kubeconfigFile of the environment file reaches the provider as an absolute path
    expect(fs.readFileSync(path.join(project.envDir, `${project.envName}.yaml`), 'utf8')).toContain(`kubeconfigFile: ${path.relative(project.envDir, KUBECONFIG)}`);
    expect(project.stackJson().provider.kubernetes).toEqual([expect.objectContaining({ config_path: KUBECONFIG, config_context: KUBE_CONTEXT })]);

    const manifests = project.manifests();
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    for (const kind of ['Cluster', 'OpenStackCluster', 'KubeadmControlPlane', 'MachineDeployment', 'OpenStackMachineTemplate', 'KubeadmConfigTemplate', 'MachineHealthCheck', 'HelmChartProxy', 'ClusterResourceSet']) {
      expect(manifests.map((m) => m.kind)).toContain(kind);
    }
    // every synthesized object exists as written (labels are ours) …
    for (const m of manifests) {
      const live = await getObject(client, m);
      expect({ object: objectLabel(m), exists: live !== undefined }).toEqual({ object: objectLabel(m), exists: true });
      expect(live.metadata.labels).toMatchObject(m.labels);
    }
    // … and nothing else of those kinds is in the namespace
    const byKind = new Map<string, string[]>();
    for (const m of manifests) byKind.set(`${m.apiVersion}|${m.kind}`, [...(byKind.get(`${m.apiVersion}|${m.kind}`) ?? []), m.name]);
    for (const [key, names] of byKind) {
      const [apiVersion, kind] = key.split('|');
      const list = ok(await client.get(`/apis/${apiVersion}/namespaces/${namespace}/${plural(kind)}`), `listing ${kind}`, [200]);
      expect(list.items.map((i: any) => i.metadata.name).sort()).toEqual([...names].sort());
    }
    // create_before_destroy (renamed templates) is on the templates and what they depend on, never on the credential
    const state = JSON.parse(fs.readFileSync(path.join(project.dir, `terraform.${STACK}.tfstate`), 'utf8'));
    const cbd = Object.fromEntries(
      state.resources.filter((r: any) => r.mode === 'managed').map((r: any) => [`${r.type}.${r.name}`, r.instances.some((i: any) => i.create_before_destroy === true)]),
    );
    for (const m of manifests) expect({ resource: m.resource, cbd: cbd[`kubernetes_manifest.${m.resource}`] }).toEqual({ resource: m.resource, cbd: m.kind.endsWith('Template') });
    expect(Object.entries(cbd).filter(([k, v]) => v && k.startsWith('openstack_identity_application_credential_v3'))).toEqual([]);
    const mdTemplate = manifests.find((m) => m.kind === 'MachineDeployment')!;
    const md = await getObject(client, mdTemplate);
    expect(md.spec.replicas).toBe(2);
    const secrets = ok(await client.get(`/api/v1/namespaces/${namespace}/secrets`), 'listing secrets', [200]);
    expect(secrets.items.map((s: any) => s.metadata.name).sort()).toEqual([`${CLUSTER}-cloud-config`, `${CLUSTER}-cloud-credentials`]);
  });

  test('per-cluster OpenStack resources: restricted application credential, API floating IP, server groups', async () => {
    needDeploy();
    const { creds, fips, groups } = await cloudResources();
    // the application credential: one, restricted, never expiring (no expiry in local.yaml), in the clouds.yaml Secret
    expect(creds).toHaveLength(1);
    expect(creds[0]).toMatchObject({ id: outputs.application_credential_id, unrestricted: false, expires_at: null });
    const secret = ok(await client.get(`/api/v1/namespaces/${namespace}/secrets/${CLUSTER}-cloud-credentials`), 'reading the clouds.yaml Secret', [200]);
    const cloudsYaml = Buffer.from(secret.data['clouds.yaml'], 'base64').toString('utf8');
    const entry = cloudEntry(cloudsYaml, 'openstack', 'the clouds.yaml Secret');
    expect(entry.auth.application_credential_id).toBe(creds[0].id);
    expect(entry.authUrl).toBe(cloudEntryFromFile(CLOUDS_YAML, 'local-e2e').authUrl);
    // the credential works, and it is restricted: it cannot mint another credential
    const asCluster = await OpenStackSession.login(entry);
    const mint = await asCluster.request('POST', 'identity', `/v3/users/${asCluster.userId}/application_credentials`, { application_credential: { name: `${namePrefix}-must-fail` } });
    expect(mint.status).toBe(403);

    // the API floating IP: the endpoint of the stack, of the OpenStackCluster and of the Cluster
    const host = new URL(outputs.api_endpoint).hostname;
    expect(fips.map((f) => f.floating_ip_address)).toEqual([host]);
    const ns = (kind: string, apiVersion: string) => ({ apiVersion, kind, name: CLUSTER, namespace });
    const osc = await getObject(client, ns('OpenStackCluster', 'infrastructure.cluster.x-k8s.io/v1beta1'));
    expect(osc.spec.apiServerFloatingIP).toBe(host);
    const cl = await getObject(client, ns('Cluster', 'cluster.x-k8s.io/v1beta2'));
    expect(cl.spec.controlPlaneEndpoint).toEqual({ host, port: 6443 });

    // server groups: hard anti-affinity for the control plane, soft for workers (the defaults)
    expect(Object.fromEntries(groups.map((g) => [g.name, g.policies]))).toEqual({
      [`${namePrefix}-control-plane`]: ['anti-affinity'],
      [`${namePrefix}-md-0`]: ['soft-anti-affinity'],
    });
    // … referenced by the machine templates
    const templates = ok(await client.get(`/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${namespace}/openstackmachinetemplates`), 'listing templates', [200]);
    const groupOf = (role: string) => templates.items.find((t: any) => t.metadata.labels['capi-openstack-cdktf/role'] === role)?.spec.template.spec.serverGroup?.id;
    expect(groupOf('control-plane')).toBe(groups.find((g) => g.name === `${namePrefix}-control-plane`)!.id);
    expect(groupOf('md-0')).toBe(groups.find((g) => g.name === `${namePrefix}-md-0`)!.id);
  });

  test('re-plan right after the deploy is empty', async () => {
    needDeploy();
    const { result, changes } = await timed('re-plan', () => project.plan());
    expect(changes).toEqual([]);
    expect(result.code).toBe(0);
  });

  test('re-plan stays empty after the CAPI controllers and webhooks wrote to the objects', async () => {
    needDeploy();
    const report = await simulateCapiControllers(client, project.manifests(), CLUSTER);
    expect(report.webhookDefaulted.length).toBeGreaterThan(0);
    notes.push(`simulated controller/webhook writes: ${report.patched} patches; webhook defaults on ${report.webhookDefaulted.join(', ')}`);
    const { result, changes } = await timed('re-plan after controller writes', () => project.plan());
    expect(changes).toEqual([]);
    expect(result.code).toBe(0);
  });

  test('kubeconfig CLI: reads the Secret named by the stack output from the management cluster', async () => {
    needDeploy();
    expect(outputs.kubeconfig_secret).toEqual({ namespace, name: `${CLUSTER}-kubeconfig`, key: 'value' });
    const cli = (out: string) =>
      run('node', [path.join(ROOT, 'dist', 'bin', 'capi-openstack.js'), 'kubeconfig', project.envName, CLUSTER, '--dir', 'environments', '--out', out], {
        cwd: project.dir,
        env: project.processEnv,
        timeoutMs: 120_000,
      });
    // before CAPI wrote it: a clear message
    const early = await cli('early.kubeconfig');
    expect(early.code).not.toBe(0);
    expect(early.output).toContain(`secret ${namespace}/${CLUSTER}-kubeconfig on the management cluster`);
    expect(early.output).toContain('does not exist (yet)');
    expect(fs.existsSync(path.join(project.dir, 'early.kubeconfig'))).toBe(false);

    // the Secret CAPI writes (type cluster.x-k8s.io/secret, key "value"), owned by the Cluster
    const host = new URL(outputs.api_endpoint).hostname;
    const workloadKubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      `clusters:\n- name: ${CLUSTER}\n  cluster:\n    server: https://${host}:6443\n    certificate-authority-data: ${Buffer.from('e2e-test-ca').toString('base64')}`,
      `contexts:\n- name: ${CLUSTER}-admin@${CLUSTER}\n  context:\n    cluster: ${CLUSTER}\n    user: ${CLUSTER}-admin`,
      `current-context: ${CLUSTER}-admin@${CLUSTER}`,
      `users:\n- name: ${CLUSTER}-admin\n  user:\n    token: e2e-test-token`,
      '',
    ].join('\n');
    ok(
      await client.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'cluster.x-k8s.io/secret',
        metadata: { name: `${CLUSTER}-kubeconfig`, namespace, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
        data: { value: Buffer.from(workloadKubeconfig).toString('base64') },
      }),
      'creating the kubeconfig Secret',
      [201],
    );
    const r = await timed('kubeconfig CLI', () => cli('e2e.kubeconfig'));
    expectExit(r, 'capi-openstack kubeconfig');
    const file = path.join(project.dir, 'e2e.kubeconfig');
    expect(fs.readFileSync(file, 'utf8')).toBe(workloadKubeconfig);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(r.output).toContain(`wrote e2e.kubeconfig (workload cluster ${CLUSTER} of ${project.envName}, API https://${host}:6443)`);
    expect(r.output).not.toContain('e2e-test-token');
  });

  test('worker count 2 → 3: the MachineDeployment is updated in place', async () => {
    needDeploy();
    const mdId = project.manifests().find((m) => m.kind === 'MachineDeployment')!;
    const before = await getObject(client, mdId);
    project.writeVariant({ workerCount: 3 });
    const { changes } = await timed('worker change: synth + plan', async () => {
      await project.synth();
      return project.plan();
    });
    expect(changes).toEqual([{ address: `kubernetes_manifest.${project.manifests().find((m) => m.kind === 'MachineDeployment')!.resource}`, type: 'kubernetes_manifest', actions: ['update'] }]);
    await timed('worker change: apply', () => project.applyPlan());
    const after = await getObject(client, mdId);
    expect(after.spec.replicas).toBe(3);
    expect(after.metadata.uid).toBe(before.metadata.uid); // same object: not replaced
  });

  test('worker flavor change: a new template, the MachineDeployment repointed in place, then the old template removed', async () => {
    needDeploy();
    const before = project.manifests();
    const mdBefore = await getObject(client, before.find((m) => m.kind === 'MachineDeployment')!);
    const oldTemplate = before.find((m) => m.kind === 'OpenStackMachineTemplate' && m.labels['capi-openstack-cdktf/role'] === 'md-0')!;
    project.writeVariant({ workerCount: 3, workerFlavor: 'SCS-4V-8-20s' });
    const { changes } = await timed('template change: synth + plan', async () => {
      await project.synth();
      return project.plan();
    });
    const after = project.manifests();
    const newTemplate = after.find((m) => m.kind === 'OpenStackMachineTemplate' && m.labels['capi-openstack-cdktf/role'] === 'md-0')!;
    expect(newTemplate.name).not.toBe(oldTemplate.name); // content-addressed name
    const md = after.find((m) => m.kind === 'MachineDeployment')!;
    const address = (r: string) => `kubernetes_manifest.${r}`;
    expect([...changes].sort((a, b) => a.address.localeCompare(b.address))).toEqual(
      [
        { address: address(oldTemplate.resource), type: 'kubernetes_manifest', actions: ['delete'] },
        { address: address(newTemplate.resource), type: 'kubernetes_manifest', actions: ['create'] },
        { address: address(md.resource), type: 'kubernetes_manifest', actions: ['update'] },
      ].sort((a, b) => a.address.localeCompare(b.address)),
    );
    const apply = await timed('template change: apply', () => project.applyPlan());
    const at = (re: string) => apply.lines.find((l) => l.text.startsWith(re))?.atMs ?? Number.NaN;
    // the MachineDeployment never points at a missing template: created → repointed → old one deleted
    const order = apply.lines.filter((l) => /^kubernetes_manifest\.\S+: /.test(l.text)).map((l) => `${l.atMs}ms ${l.text}`);
    expect({
      order,
      newCreatedBeforeRepoint: at(`${address(newTemplate.resource)}: Creation complete`) <= at(`${address(md.resource)}: Modifying...`),
      repointedBeforeOldDeleted: at(`${address(md.resource)}: Modifications complete`) <= at(`${address(oldTemplate.resource)}: Destroying...`),
    }).toEqual({ order, newCreatedBeforeRepoint: true, repointedBeforeOldDeleted: true });
    const mdAfter = await getObject(client, md);
    expect(mdAfter.metadata.uid).toBe(mdBefore.metadata.uid);
    expect(mdAfter.spec.template.spec.infrastructureRef.name).toBe(newTemplate.name);
    expect((await getObject(client, newTemplate)).spec.template.spec.flavor).toBe('SCS-4V-8-20s');
    expect(await getObject(client, oldTemplate)).toBeUndefined();
  });

  test('disabling an add-on (ingressNginx) removes its HelmChartProxy and nothing else', async () => {
    needDeploy();
    const proxies = project.manifests().filter((m) => m.kind === 'HelmChartProxy');
    const ingress = proxies.find((m) => m.name === `${CLUSTER}-ingress-nginx`);
    expect(ingress).toBeDefined();
    expect(await getObject(client, ingress!)).toBeDefined();
    project.writeVariant({ workerCount: 3, workerFlavor: 'SCS-4V-8-20s', disabledAddons: ['ingressNginx'] });
    const { changes } = await timed('add-on disable: synth + plan', async () => {
      await project.synth();
      return project.plan();
    });
    expect(changes).toEqual([{ address: `kubernetes_manifest.${ingress!.resource}`, type: 'kubernetes_manifest', actions: ['delete'] }]);
    await timed('add-on disable: apply', () => project.applyPlan());
    expect(await getObject(client, ingress!)).toBeUndefined();
    for (const p of proxies.filter((m) => m !== ingress)) expect({ proxy: p.name, exists: (await getObject(client, p)) !== undefined }).toEqual({ proxy: p.name, exists: true });
    const { changes: after } = await timed('re-plan after the changes', () => project.plan());
    expect(after).toEqual([]);
  });

  test('destroy: the Cluster goes first and Terraform waits for CAPI; credentials go last; nothing is left', async () => {
    needDeploy();
    const manifests = project.manifests();
    const clusterRes = manifests.find((m) => m.kind === 'Cluster')!;
    const cluster = await getObject(client, clusterRes);
    expect(cluster.metadata.finalizers).toEqual([CLUSTER_FINALIZER]); // held since the controller simulation
    const credential = (await cloudResources()).creds[0];
    const state = (await project.stateList()).filter((a) => !a.startsWith('data.'));
    expect(state.length).toBeGreaterThan(manifests.length);

    // What the cluster's Cinder CSI would have left: a volume marked with this cluster's name (the
    // destroy must delete it) and one of another cluster (it must stay).
    const volumes = probeLocalCloud(CLOUDS_YAML, cloudName).cinder ? await LocalCloud.login(readPasswordCloud(CLOUDS_YAML, cloudName)) : undefined;
    const csiVolumes = volumes
      ? { mine: await volumes.createVolume(`${namePrefix}-pvc-data`, { [CSI_KEY]: namePrefix }), other: await volumes.createVolume(`${namePrefix}-x-pvc-data`, { [CSI_KEY]: `${namePrefix}-x` }) }
      : undefined;
    if (!csiVolumes) notes.push('no Cinder in the local cloud: the leftover volume check was not run');

    const t0 = Date.now();
    const destroy = start(project.processEnv.TERRAFORM_BINARY_NAME || 'terraform', ['destroy', '-auto-approve', '-input=false', '-no-color'], {
      cwd: project.stackDir,
      env: project.processEnv,
      timeoutMs: 15 * 60_000,
    });
    const seen = (re: RegExp) => destroy.lines.some((l) => re.test(l.text));
    // Terraform deletes the Cluster; CAPI (the finalizer) keeps it until the cluster is torn down
    await waitFor('the Cluster to get a deletionTimestamp', 120_000, async () => ((await getObject(client, clusterRes))?.metadata.deletionTimestamp ? true : undefined));
    const heldFrom = Date.now();
    const HOLD_MS = 8_000;
    while (Date.now() - heldFrom < HOLD_MS) {
      expect(destroy.child.exitCode).toBeNull(); // still waiting
      expect((await openstack.applicationCredentials(namePrefix)).map((c) => c.id)).toEqual([credential.id]);
      ok(await client.get(`/api/v1/namespaces/${namespace}/secrets/${CLUSTER}-cloud-credentials`), 'the clouds.yaml Secret while the Cluster is deleted', [200]);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(seen(/kubernetes_secret_v1\.CloudsSecret: Destroying/)).toBe(false);
    expect(seen(/openstack_identity_application_credential_v3\.\S+: Destroying/)).toBe(false);
    expect(seen(new RegExp(`kubernetes_manifest\\.${clusterRes.resource}: Destruction complete`))).toBe(false);
    // CAPI has finished: the finalizer goes, the API server deletes the Cluster
    const releasedAt = Date.now() - t0;
    expect(await releaseClusterFinalizers(client, namespace)).toEqual([CLUSTER]);
    const result = await destroy.done;
    timings['destroy (terraform destroy, incl. Cluster finalizer hold)'] = Math.round(result.seconds * 10) / 10;
    timings['destroy after the finalizer was released'] = Math.round((result.seconds - releasedAt / 1000) * 10) / 10;
    expectExit(result, 'terraform destroy');
    expect(result.output).toMatch(/Destroy complete! Resources: \d+ destroyed/);

    // the order, from the time-stamped destroy output
    const at = (re: RegExp) => {
      const l = result.lines.find((x) => re.test(x.text));
      if (!l) throw new Error(`no line ${re} in the destroy output:\n${tail(result)}`);
      return l.atMs;
    };
    const clusterGone = at(new RegExp(`kubernetes_manifest\\.${clusterRes.resource}: Destruction complete`));
    expect(clusterGone).toBeGreaterThanOrEqual(releasedAt - 1_000);
    const destroying = result.lines.filter((l) => /^\S+: Destroying\.\.\./.test(l.text));
    const isCleanup = (text: string) => text.startsWith('terraform_data.Leftovers_');
    const others = destroying.filter((l) => !l.text.includes(clusterRes.resource) && !isCleanup(l.text));
    expect(others.length).toBe(state.length - 2);
    for (const l of others) expect({ line: l.text, afterClusterGone: l.atMs >= clusterGone }).toEqual({ line: l.text, afterClusterGone: true });
    const credentialStart = at(/openstack_identity_application_credential_v3\.\S+: Destroying/);
    // the leftovers cleanup runs alongside the Cluster deletion (it waits for the machines itself),
    // logs in with the operator's clouds.yaml entry, and is done before the credential goes
    expect(at(/^terraform_data\.Leftovers_\S+: Destroying/)).toBeLessThan(clusterGone);
    expect(at(/^terraform_data\.Leftovers_\S+: Destruction complete/)).toBeLessThanOrEqual(credentialStart);
    const cleanupLines = result.lines.filter((l) => /^terraform_data\.Leftovers_\S+ \(local-exec\): /.test(l.text)).map((l) => l.text.replace(/^\S+ \(local-exec\): /, ''));
    expect(cleanupLines.join('\n')).toMatch(new RegExp(`capi-local-e2e-${CLUSTER}|${namePrefix}`));
    notes.push(`leftovers cleanup output: ${cleanupLines.join(' | ')}`);
    expect(credentialStart).toBeGreaterThanOrEqual(at(/kubernetes_secret_v1\.CloudsSecret: Destruction complete/));
    // everything that hands the credential to CAPO / the add-ons is gone before it (templates carry none)
    for (const m of manifests.filter((x) => !x.kind.endsWith('Template'))) {
      const done = result.lines.find((x) => x.text.startsWith(`kubernetes_manifest.${m.resource}: Destruction complete`));
      // a manifest the garbage collector removed first is reported "already deleted" (warning) and completes too
      expect({ manifest: m.resource, doneBeforeCredential: done !== undefined && done.atMs <= credentialStart }).toEqual({ manifest: m.resource, doneBeforeCredential: true });
    }
    notes.push(`destroy order: Cluster gone at ${(clusterGone / 1000).toFixed(1)}s (finalizer released at ${(releasedAt / 1000).toFixed(1)}s), credential deletion started at ${(credentialStart / 1000).toFixed(1)}s`);

    // nothing left: Kubernetes, OpenStack, state
    const nsAfter = await client.get(`/api/v1/namespaces/${namespace}`);
    expect(nsAfter.kind === 'response' ? nsAfter.status : nsAfter.reason).toBe(404);
    for (const m of manifests) expect(await getObject(client, m)).toBeUndefined();
    expect(await cloudResources()).toEqual({ creds: [], fips: [], groups: [] });
    expect(await project.stateList()).toEqual([]);
    if (volumes && csiVolumes) {
      expect(await volumes.volume(csiVolumes.mine)).toBeUndefined();
      expect((await volumes.volume(csiVolumes.other))?.status).toBe('available');
      await volumes.call('DELETE', 'volume', `/volumes/${csiVolumes.other}`, undefined, [202, 404]);
      expect(cleanupLines.join('\n')).toMatch(/cleanup: volumes: deleting 1:/);
    }
    deployed = false;
  });
});
