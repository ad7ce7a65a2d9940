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
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import {
  getObject,
  kubeClientFromKubeconfig,
  objectLabel,
  ok,
  plural,
  releaseClusterFinalizers,
  simulateCapiControllers,
} from './support/workload-kube';
import { cloudEntry, cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { LOCAL_CLOUDS_YAML, LOCAL_KUBECONFIG } from './support/lane-paths';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { serviceGate } from './support/service-gate';
import { expectExit, newestSourceMtime, ROOT, tail, toolchainEnv } from './support/workload-process';
import { WorkloadProject } from './support/workload-project';
import { cloudResources, expectKubeconfigCommand, expectOrderlyDestroy, removeLeftovers } from './helpers/workload-checks';

const KUBECONFIG = LOCAL_KUBECONFIG;
const CLOUDS_YAML = LOCAL_CLOUDS_YAML;
const KUBE_CONTEXT = 'local-kube';
const SOURCE_ENV = path.join(ROOT, 'environments', 'local.yaml');
const CLUSTER = 'e2e';
const STACK = `local-${CLUSTER}`;
/** Bound of the wait for the shared e2e lock (the before-all hook gets 5 minutes more, so the lock's message wins). */
const LOCK_TIMEOUT_S = Number(process.env.CAPI_E2E_LOCK_TIMEOUT_S ?? 40 * 60);

const { suite, requireRunning } = serviceGate('workload-cluster e2e', ['local-kube', 'local-cloud']);

/** Seconds per phase, printed at the end and written to <tmp>/capi-e2e-results/workload-cluster.json. */
const timer = phaseTimer('workload e2e');
const { timings, log, timed } = timer;
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

  beforeAll(async () => {
    requireRunning();
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
    await removeLeftovers({ client, openstack, namespace, namePrefix, log }, 'before the run');
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
        await removeLeftovers({ client, openstack, namespace, namePrefix, log }, 'afterAll').catch((e) => log(`afterAll: removing leftovers failed: ${(e as Error).message}`));
      }
    } finally {
      if (project && process.env.KEEP_E2E_PROJECT !== '1') project.remove();
      await lock?.release();
      writeSuiteSummary('workload-cluster', timer, { stack: STACK, notes });
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
    const { creds, fips, groups } = await cloudResources(openstack, namePrefix);
    // one, restricted, in the clouds.yaml Secret; the member roles only (not the user's reader), a year
    expect(creds.map((c) => [c.id, c.unrestricted, c.roles.map((r) => r.name).sort()])).toEqual([[outputs.application_credential_id, false, ['load-balancer_member', 'member']]]);
    expect(Math.round((Date.parse(`${creds[0].expires_at}Z`.replace(/ZZ$/, 'Z')) - Date.now()) / 86_400_000)).toBe(365);
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
    await expectKubeconfigCommand({ project, client, openstack, namespace, namePrefix, cloudName, cloudsYaml: CLOUDS_YAML, cluster: CLUSTER, outputs, timings, notes, log, timed });
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
    await expectOrderlyDestroy({ project, client, openstack, namespace, namePrefix, cloudName, cloudsYaml: CLOUDS_YAML, cluster: CLUSTER, outputs, timings, notes, log, timed });
    deployed = false;
  });
});
