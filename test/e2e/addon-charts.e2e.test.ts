/**
 * The add-on charts from a private mirror, installed by the real Helm add-on provider: the charts
 * packaged here from the Go modules that carry them (scripts/local-charts/build) are served by an
 * OCI registry over HTTPS with a CA made here (scripts/local-charts/start); an environment names it
 * in `chartRepository` (url + caCertificateFile); the HelmChartProxies and the CA Secret the product
 * builds for a cluster go to the local kube-apiserver, where CAAPH v0.6.4 runs as a local process
 * (scripts/local-capi) and installs each chart into the cluster's API server, a real kube-apiserver
 * (support/bare-workload-apiserver.ts: no kubelet, so no pod runs; what is checked is the release
 * and the objects the chart rendered from the values the product computed).
 *
 * CAAPH's own process does not trust the test CA: an install succeeds only through the CA Secret
 * the HelmChartProxy names, which two control proxies show (no CA reference: refused; an https://
 * repository with the CA: refused too, why `validate` takes a CA with oci:// only). A third shows
 * why `validate` refuses the pinned Gateway API CRD chart; Traefik's is installed as on a new cluster
 * (helpers/traefik-gateway-checks.ts). Charts the Go module proxy does not
 * carry are listed with the reason and their HelmReleaseProxies' state, never skipped silently.
 * Skipped, with a message, when a service or a build is missing, unless LOCAL_CAPI_REQUIRED=1.
 * Runs under the lane's e2e lock (the controllers watch every namespace of the lane's API server).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { ADDON_CATALOGUE, AddonId, OCCM_CONFIG_DIR, cinderConfigDir, buildAddonObjects, buildChartRepositoryCaSecret, kubernetesMinor } from '../../lib/addons';
import { CLUSTER_NAME_LABEL, CLUSTER_SELECTOR_LABEL, KubeObject } from '../../lib/capi';
import { EnvironmentConfig, loadEnvironmentFile } from '../../lib/config';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { ChartRow, chartBuildReport, chartsPrerequisitesMissing, conditionText, deployed, getIfFound as get, installableWithoutNodes, proxyOf, script, writeChartsEnvironment } from './helpers/addon-charts';
import { expectTraefikAfterTheCrds } from './helpers/traefik-gateway-checks';
import { gatewayCrdControl, waitForReleaseSecretTooLong, withHelmStatus } from './helpers/gateway-crd-control';
import { BareWorkloadApiServer } from './support/bare-workload-apiserver';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { LOCAL_CAPI_STATE, LOCAL_KUBE_ETCD_URL, LOCAL_KUBECONFIG } from './support/lane-paths';
import { freePort } from './support/local-process';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { deleteNamespaceAndWait, kubeClientFromKubeconfig, ok, plural, waitFor } from './support/workload-kube';
import { localKubeBinDir } from './support/workload-process';

const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1';
const LOCK_TIMEOUT_S = Number(process.env.CAPI_E2E_LOCK_TIMEOUT_S ?? 40 * 60);
const CLUSTER = 'charts';
const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
// beside the lane's controllers: lane N keeps it in its own folder
const CHARTS_STATE = path.join(path.dirname(LOCAL_CAPI_STATE), 'local-charts');

const why = chartsPrerequisitesMissing();
if (why.length > 0 && !REQUIRED) console.warn(`addon-charts e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length === 0 || REQUIRED ? describe : describe.skip;
const timer = phaseTimer('addon-charts e2e');
const { timings, log, timed } = timer;
const findings: string[] = [];

suite('add-on charts from a private OCI mirror with its own CA, installed by the real CAAPH into a workload API server', () => {
  let lock: E2eLock | undefined;
  let management: KubeClient;
  let workload: BareWorkloadApiServer | undefined;
  let env: EnvironmentConfig;
  let namespace: string;
  let proxies: KubeObject[] = [];
  let mirror: Record<string, string> = {};
  let obtained: Map<string, ChartRow>;
  let runId: string;
  let controllersStarted = false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'addon-charts-e2e-'));
  const chartsEnv = async () => ({ ...process.env, LOCAL_CHARTS_STATE: CHARTS_STATE, LOCAL_CHARTS_OCI_PORT: String(await freePort()), LOCAL_CHARTS_HTTPS_PORT: String(await freePort()) });

  const releases = async (): Promise<any[]> => ok(await management.get(`/apis/${HELM}/namespaces/${namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items;
  const apply = async (o: KubeObject) => {
    const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
    const p = o.kind === 'Namespace' ? '/api/v1/namespaces' : `${base}/namespaces/${o.metadata.namespace}/${plural(o.kind)}`;
    ok(await management.request('POST', p, o), `creating ${o.kind} ${o.metadata.name}`, [201]);
  };
  const valuesOf = (id: AddonId) => {
    const hcp = proxies.find((p) => p.metadata.labels?.['capi-openstack-cdktf/addon'] === id) as any;
    return hcp?.spec.valuesTemplate ? parse(hcp.spec.valuesTemplate) : {};
  };
  const installed = (chart: string) => obtained.has(chart);
  const installedVersion = (chart: string) => obtained.get(chart)?.version;

  beforeAll(async () => {
    if (why.length > 0) throw new Error(`LOCAL_CAPI_REQUIRED=1 but ${why.join('; ')}`);
    lock = await acquireE2eLock({ holder: 'addon-charts e2e', timeoutSeconds: LOCK_TIMEOUT_S, log });
    management = kubeClientFromKubeconfig(LOCAL_KUBECONFIG, 'local-kube');
    const foreign = ok(await management.get('/apis/cluster.x-k8s.io/v1beta2/clusters'), 'listing Clusters', [200]).items as any[];
    if (foreign.length > 0) throw new Error(`the local kube-apiserver already holds Cluster objects (${foreign.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).join(', ')}); the controllers would reconcile them too`);

    const report = chartBuildReport();
    obtained = new Map(report.filter(installableWithoutNodes).map((r) => [r.chart, r]));
    for (const r of report) log(`chart ${r.chart}: ${r.source} → ${r.version}: ${r.result}`);
    for (const r of report.filter((x) => !x.result.startsWith('packaged'))) findings.push(`${r.chart}: ${r.result}`);

    const started = await timed('chart mirror start (OCI registry + HTTPS repository, charts pushed)', async () => script('local-charts/start', [], await chartsEnv(), 300_000));
    if (started.status !== 0) throw new Error(`scripts/local-charts/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
    mirror = Object.fromEntries(started.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

    runId = `charts-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const controllers = await timed('controllers start', async () => script('local-capi/start', [], { ...process.env, LOCAL_CAPI_RUN: runId }, 300_000));
    if (controllers.status !== 0) throw new Error(`scripts/local-capi/start failed (${controllers.status}):\n${controllers.stderr.slice(-3000)}`);
    controllersStarted = true;
    log(`controller logs: ${path.join(LOCAL_CAPI_STATE, 'logs', runId)}`);

    workload = await timed('workload API server up', () =>
      BareWorkloadApiServer.start({ kubeBinDir: localKubeBinDir(), etcdUrl: LOCAL_KUBE_ETCD_URL, name: runId, dir: path.join(dir, 'workload') }),
    );

    const file = writeChartsEnvironment({ dir, cluster: CLUSTER, managementKubeconfig: LOCAL_KUBECONFIG, mirrorUrl: mirror.LOCAL_CHARTS_OCI_URL, mirrorCaFile: mirror.LOCAL_CHARTS_CA, obtained });
    env = loadEnvironmentFile(file);
    const cluster = env.clusters[0];
    namespace = cluster.namespace;
    proxies = buildAddonObjects({ env, cluster }).filter((o) => o.kind === 'HelmChartProxy');
    const caSecret = buildChartRepositoryCaSecret({ env, cluster })!;

    // what the workload stack and Cluster API would have put on the management cluster: the
    // namespace, the Cluster (selected by the proxies' label), its kubeconfig Secret, the CA Secret
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const kubeconfigMeta = { name: `${CLUSTER}-kubeconfig`, namespace, labels: { [CLUSTER_NAME_LABEL]: CLUSTER } };
    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: kubeconfigMeta, type: 'cluster.x-k8s.io/secret', stringData: { value: workload.kubeconfig } });
    await apply(caSecret);
    // CAAPH reads the Cluster's infrastructure object (values templates may use it); paused, so
    // CAPO leaves it alone (no cloud behind this cluster). CAAPH needs nothing else but the
    // kubeconfig Secret and a control plane not reported uninitialized.
    const paused = { name: CLUSTER, namespace, annotations: { 'cluster.x-k8s.io/paused': 'true' } };
    await apply({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'OpenStackCluster', metadata: paused, spec: { identityRef: { name: `${CLUSTER}-cloud-credentials`, cloudName: 'openstack' } } });
    await apply({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: CLUSTER, namespace, labels: { [CLUSTER_SELECTOR_LABEL]: CLUSTER } },
      spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'OpenStackCluster', name: CLUSTER } },
    });
    for (const p of proxies) await apply(p);
    log(`applied ${proxies.length} HelmChartProxies from ${mirror.LOCAL_CHARTS_OCI_URL}: ${proxies.map((p) => p.metadata.name).join(', ')}`);
  }, (LOCK_TIMEOUT_S + 15 * 60) * 1000);

  afterAll(async () => {
    try {
      if (management && namespace && controllersStarted) {
        // while CAAPH runs: it removes its finalizers once the releases are uninstalled
        await management.request('DELETE', `/apis/${HELM}/namespaces/${namespace}/helmchartproxies`);
        await waitFor('the HelmReleaseProxies to be gone', 180_000, async () => ((await releases().catch(() => [])).length === 0 ? true : undefined), 1_000).catch((e) => log(`afterAll: ${(e as Error).message}`));
        await deleteNamespaceAndWait(management, namespace, 180_000).catch((e) => log(`afterAll: ${(e as Error).message}`));
      }
    } finally {
      if (controllersStarted) {
        const stopped = script('local-capi/stop', [], process.env, 120_000);
        if (stopped.status !== 0) log(`afterAll: scripts/local-capi/stop failed: ${stopped.stderr.slice(-2000)}`);
      }
      await workload?.stop().catch((e) => log(`afterAll: stopping the workload API server: ${(e as Error).message}`));
      const charts = script('local-charts/stop', [], { ...process.env, LOCAL_CHARTS_STATE: CHARTS_STATE });
      if (charts.status !== 0) log(`afterAll: scripts/local-charts/stop failed: ${charts.stderr.slice(-1000)}`);
      if (process.env.KEEP_E2E_PROJECT !== '1') fs.rmSync(dir, { recursive: true, force: true });
      await lock?.release();
      writeSuiteSummary('addon-charts', timer, { findings, mirror, controllerLogs: runId && path.join(LOCAL_CAPI_STATE, 'logs', runId) });
    }
  });

  test('the HelmChartProxies name the mirror and the CA Secret; CAAPH installs every chart the mirror holds: HelmReleaseProxy Ready, release deployed', async () => {
    for (const p of proxies as any[]) {
      expect(p.spec.repoURL).toBe(mirror.LOCAL_CHARTS_OCI_URL);
      expect(p.spec.tlsConfig).toEqual({ caSecret: { name: `${CLUSTER}-chart-repository-ca`, namespace } });
    }
    // Traefik's waits for the Gateway API CRDs, applied after the CRD chart's control (its own test)
    const expected = proxies.filter((p: any) => installed(p.spec.chartName) && p.spec.chartName !== 'traefik').map((p) => p.metadata.name).sort();
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const t0 = Date.now();
    const ready = new Map<string, number>();
    const all = await timed('releases deployed', () =>
      waitFor(`HelmReleaseProxies of ${expected.join(', ')} deployed`, 5 * 60_000, async () => {
        const rs = await releases();
        for (const r of rs) if (deployed(r) && !ready.has(proxyOf(r))) ready.set(proxyOf(r), Math.round((Date.now() - t0) / 100) / 10);
        return expected.every((name) => ready.has(name)) ? rs : undefined;
      }, 1_000),
    ).catch(async (e) => {
      for (const r of await releases()) log(`${proxyOf(r)}: status ${r.status?.status ?? '-'}; ${conditionText(r)}`);
      throw e;
    });
    for (const [name, s] of ready) timings[`${name} deployed after (s)`] = s;
    for (const r of all) {
      const verdict = deployed(r) ? `deployed, revision ${r.status.revision}, chart ${r.spec.chartName} ${r.spec.version}` : `not deployed: ${conditionText(r)}`;
      log(`${proxyOf(r)}: ${verdict}`);
      if (!deployed(r)) findings.push(`${proxyOf(r)} (${r.spec.chartName} ${r.spec.version}): ${verdict}`);
      expect(r.spec.repoURL).toBe(mirror.LOCAL_CHARTS_OCI_URL);
    }
  });

  test('OCCM: the DaemonSet the chart rendered carries the cluster name, controllers, secret, node selector and tolerations the product computed', async () => {
    if (!installed('openstack-cloud-controller-manager')) throw new Error('the OCCM chart was not obtained (see the build report)');
    const values = valuesOf('openstack-cloud-controller-manager');
    const ds = await get(workload!.client, '/apis/apps/v1/namespaces/kube-system/daemonsets/openstack-cloud-controller-manager');
    expect(ds).toBeDefined();
    const pod = ds.spec.template.spec;
    const [occm] = pod.containers;
    // the chart passes the cluster name through the environment
    expect(occm.args).toContain('--cluster-name=$(CLUSTER_NAME)');
    expect(occm.env).toContainEqual({ name: 'CLUSTER_NAME', value: values.cluster.name });
    expect(occm.args).toContain(`--controllers=${values.enabledControllers.join(',')}`);
    // cloud.conf, and the CA path written into it (cloud-config.ts), are where the chart mounts the Secret
    expect(occm.env).toContainEqual({ name: 'CLOUD_CONFIG', value: `${OCCM_CONFIG_DIR}/cloud.conf` });
    expect(occm.volumeMounts).toContainEqual(expect.objectContaining({ name: 'cloud-config-volume', mountPath: OCCM_CONFIG_DIR }));
    expect(pod.nodeSelector).toEqual(values.nodeSelector);
    for (const t of values.tolerations) expect(pod.tolerations).toContainEqual(t);
    expect(pod.volumes).toContainEqual(expect.objectContaining({ secret: expect.objectContaining({ secretName: values.secret.name }) }));
  });

  test('metrics-server: its Deployment without --kubelet-insecure-tls, and the metrics APIService', async () => {
    if (!installed('metrics-server')) throw new Error('the metrics-server chart was not obtained (see the build report)');
    const d = await get(workload!.client, '/apis/apps/v1/namespaces/kube-system/deployments/metrics-server');
    expect(d).toBeDefined();
    const args: string[] = d.spec.template.spec.containers.flatMap((c: any) => c.args ?? []);
    expect(args.some((a) => a.startsWith('--kubelet-preferred-address-types=InternalIP'))).toBe(true);
    expect(args).not.toContain('--kubelet-insecure-tls');
    expect(await get(workload!.client, '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')).toBeDefined();
  });

  test('the other charts the mirror holds: their objects carry the values the product computed (Cilium, Cinder CSI)', async () => {
    const checked: string[] = [];
    if (installed('cilium')) {
      const cm = await get(workload!.client, '/api/v1/namespaces/kube-system/configmaps/cilium-config');
      const v = valuesOf('cilium');
      expect(cm.data).toEqual(expect.objectContaining({ ipam: v.ipam.mode, 'routing-mode': v.routingMode, 'tunnel-protocol': v.tunnelProtocol }));
      expect(await get(workload!.client, '/apis/apps/v1/namespaces/kube-system/daemonsets/cilium')).toBeDefined();
      checked.push('cilium');
    }
    if (installed('openstack-cinder-csi')) {
      const v = valuesOf('cinder-csi');
      const sc = await get(workload!.client, '/apis/storage.k8s.io/v1/storageclasses/csi-cinder-sc-delete');
      expect(sc.provisioner).toBe('cinder.csi.openstack.org');
      expect(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true').toBe(v.storageClass.delete.isDefault);
      const controller = await get(workload!.client, '/apis/apps/v1/namespaces/kube-system/deployments/openstack-cinder-csi-controllerplugin');
      const pod = controller.spec.template.spec;
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'cloud-config', secret: expect.objectContaining({ secretName: v.secret.name }) }));
      const plugin = pod.containers.find((c: any) => c.name === 'cinder-csi-plugin');
      expect(plugin.env).toContainEqual({ name: 'CLUSTER_NAME', value: v.clusterID });
      // the CA path cloud-config.ts writes into cloud-csi.conf must be where the chart mounts the Secret
      const mount = plugin.volumeMounts.find((m: any) => m.name === 'cloud-config')?.mountPath;
      expect(mount).toBe(cinderConfigDir(installedVersion('openstack-cinder-csi')!));
      expect(plugin.env).toContainEqual({ name: 'CLOUD_CONFIG', value: `${mount}/${v.secret.filename}` });
      checked.push('openstack-cinder-csi');
    }
    log(`values checked for: ${checked.join(', ') || 'none'}`);
    findings.push(`values checked beyond OCCM and metrics-server: ${checked.join(', ') || 'none'}`);
  });

  /** A copy of metrics-server's proxy with `change`, applied; resolves once CAAPH deploys it or reports a certificate error. */
  const certificateControl = async (name: string, change: (spec: any) => any, what: string) => {
    const metrics = proxies.find((p: any) => p.spec.chartName === 'metrics-server') as any;
    const control = { ...metrics, metadata: { ...metrics.metadata, name: `${CLUSTER}-${name}` }, spec: change({ ...metrics.spec, releaseName: name, namespace: name }) };
    await apply(control);
    const r = await timed(what, () =>
      waitFor(`the ${name} HelmReleaseProxy to report its failure`, 180_000, async () => {
        const x = (await releases()).find((y) => proxyOf(y) === control.metadata.name);
        return x && (deployed(x) || /x509|certificate/.test(conditionText(x))) ? x : undefined;
      }, 1_000),
    );
    log(`${what}: ${deployed(r) ? 'deployed' : conditionText(r).slice(0, 400)}`);
    return r;
  };

  test('control: the same chart without the CA Secret reference is refused on the mirror\'s certificate (CAAPH does not trust the test CA by itself)', async () => {
    expect(deployed(await certificateControl('control-no-ca', ({ tlsConfig, ...spec }) => spec, 'control without the CA refused'))).toBe(false);
  });

  test('control: an https:// repository with the CA Secret is refused too (CAAPH v0.6.4 gives the CA to OCI only; why validate takes a CA with oci:// only)', async () => {
    expect(deployed(await certificateControl('control-https', (spec) => ({ ...spec, repoURL: mirror.LOCAL_CHARTS_HTTPS_URL }), 'control https:// with the CA refused'))).toBe(false);
  });

  test('control: the pinned Gateway API CRD chart cannot be installed: its Helm release is over the 1 MiB of a Secret (why validate refuses gatewayApi.crds: true)', async () => {
    const pinned = ADDON_CATALOGUE['gateway-api-crds'].defaultVersion(kubernetesMinor(env.clusters[0]));
    expect({ mirrorHolds: installedVersion('gateway-crds-helm') }).toEqual({ mirrorHolds: pinned });
    const control = gatewayCrdControl(proxies.find((p: any) => p.spec.chartName === 'metrics-server'), CLUSTER, pinned);
    await apply(control);
    await timed('gateway CRD chart refused', () => waitForReleaseSecretTooLong(path.join(LOCAL_CAPI_STATE, 'logs', runId, 'caaph.log')));
    const r = await withHelmStatus(async () => (await releases()).find((x) => proxyOf(x) === control.metadata.name));
    log(`control gateway CRD chart: release ${r?.status?.status ?? '-'}; ${conditionText(r).slice(0, 300)}`);
    expect({ deployed: deployed(r), status: r?.status?.status }).toEqual({ deployed: false, status: 'pending-install' });
  });

  test('Traefik (Gateway API with any CNI): its release waits for the Gateway API CRDs the operator applies after the cluster is up; then deployed, with GatewayClass traefik, the Gateway for every namespace and the Gateway provider only; the documented HTTPRoute is accepted', async () => {
    if (!installed('traefik')) throw new Error('the Traefik chart was not obtained (see the build report)');
    const traefik = async () => (await releases()).find((r) => proxyOf(r) === `${CLUSTER}-traefik`);
    await expectTraefikAfterTheCrds({ release: traefik, workload: workload!, dir, values: valuesOf('traefik'), timer, findings });
  });

  test('every add-on of the catalogue has a verdict: deployed, or why not (listed, not skipped)', async () => {
    const rs = await releases();
    const verdicts = proxies.map((p: any) => {
      const r = rs.find((x) => proxyOf(x) === p.metadata.name);
      const row = obtained.get(p.spec.chartName);
      const id = p.metadata.labels['capi-openstack-cdktf/addon'] as AddonId;
      const pin = ADDON_CATALOGUE[id].defaultVersion(kubernetesMinor(env.clusters[0]));
      return `${id} (${p.spec.chartName} ${p.spec.version}${pin === p.spec.version ? ', the pin' : `; the catalogue pins ${pin}`}): ${r && deployed(r) ? 'deployed' : `not deployed — ${row ? conditionText(r) : 'chart not in the mirror'}`}${row ? ` [from ${row.source}]` : ''}`;
    });
    for (const v of verdicts) log(v);
    findings.push(...verdicts);
    expect(verdicts.filter((v) => v.includes('not deployed') && !v.includes('chart not in the mirror'))).toEqual([]);
  });
});
