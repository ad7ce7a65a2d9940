/** What the addon-charts e2e reads and writes besides the cluster: the chart build's report, the environment file, HelmReleaseProxy verdicts. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ROOT } from '../support/workload-process';

/** A script of scripts/, run to its end. */
export function script(name: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}

/** What the suite needs and does not find: the local kube-apiserver running, the controllers, the kube binaries and the charts built. */
export function chartsPrerequisitesMissing(): string[] {
  return [
    script('local-kube/status').status !== 0 && 'the local kube-apiserver is not running (scripts/local-kube/start)',
    script('local-capi/build', ['--check']).status !== 0 && 'the Cluster API controllers are not built (scripts/local-capi/build)',
    script('local-kube/build', ['--check']).status !== 0 && 'the local kube binaries are not built (scripts/local-kube/build)',
    script('local-charts/build', ['--check']).status !== 0 && 'no charts packaged (scripts/local-charts/build)',
  ].filter(Boolean) as string[];
}

/** Where scripts/local-charts/build puts its packages (LOCAL_CHARTS_PACKAGES of its lib.sh). */
function localChartsPackages(): string {
  const r = spawnSync('bash', ['-c', '. scripts/local-charts/lib.sh && echo "$LOCAL_CHARTS_PACKAGES"'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reading LOCAL_CHARTS_PACKAGES failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The Gateway API CRDs scripts/local-charts/build staged: their folder and release. */
export function gatewayApiCrds(): { dir: string; version: string } {
  const dir = path.join(localChartsPackages(), 'gateway-api-crds');
  if (!fs.existsSync(path.join(dir, 'VERSION'))) throw new Error(`no Gateway API CRDs in ${dir} (scripts/local-charts/build stages them)`);
  return { dir, version: fs.readFileSync(path.join(dir, 'VERSION'), 'utf8').trim() };
}

/** The HTTPRoute example of docs/addons.md ("An HTTPRoute on Traefik's Gateway"), as printed. */
export function documentedHttpRoute(): any {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'addons.md'), 'utf8');
  const m = /An HTTPRoute on Traefik's Gateway:\n\n```yaml\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/addons.md: no yaml block after "An HTTPRoute on Traefik\'s Gateway:"');
  return parse(m[1]);
}

/** One row of scripts/local-charts/build's report. */
export interface ChartRow {
  readonly chart: string;
  /** module@version the chart was packaged from (or the module alone). */
  readonly source: string;
  /** Chart version packaged ("-" when none). */
  readonly version: string;
  /** "packaged …" or "not obtained: <why>". */
  readonly result: string;
}

export function chartBuildReport(): ChartRow[] {
  return fs
    .readFileSync(path.join(localChartsPackages(), 'report.tsv'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [chart, source, version, result] = line.split('\t');
      return { chart, source, version, result };
    });
}

/**
 * The charts a world without nodes installs: every packaged one but cert-manager, whose release
 * waits for its post-install hook, a Job (startupapicheck) that needs a node. There it stays at the
 * catalogue's pin (not in the mirror); the workload-nodes suite installs the mirror's release.
 */
export const installableWithoutNodes = (r: ChartRow): boolean => r.result.startsWith('packaged') && r.chart !== 'cert-manager';

/** Where each chart's version is set in an environment file (`clusters.<name>.addons.<field>.<key>`). */
const VERSION_FIELD: Record<string, [string, string]> = {
  cilium: ['cni', 'version'],
  'openstack-cloud-controller-manager': ['openstackCloudControllerManager', 'version'],
  'openstack-cinder-csi': ['cinderCsi', 'version'],
  'snapshot-controller': ['cinderCsi', 'snapshotControllerVersion'],
  'metrics-server': ['metricsServer', 'version'],
  'ingress-nginx': ['ingressNginx', 'version'],
  'cert-manager': ['certManager', 'version'],
  flux2: ['flux', 'version'],
  'gateway-crds-helm': ['gatewayApi', 'version'],
  traefik: ['gatewayApi', 'traefikVersion'],
};

export interface ChartsEnvironment {
  readonly dir: string;
  readonly cluster: string;
  readonly managementKubeconfig: string;
  readonly mirrorUrl: string;
  readonly mirrorCaFile: string;
  /** The charts the mirror holds. */
  readonly obtained: ReadonlyMap<string, ChartRow>;
}

/**
 * The environment file an operator would write: the mirror and its CA, every add-on on (Gateway
 * API with Traefik, the CRDs not from a chart), each chart
 * at the version the mirror holds where that differs from the catalogue's pin. Returns its path.
 */
export function writeChartsEnvironment(o: ChartsEnvironment): string {
  // Gateway API with Traefik and the CRDs from the operator (crds: false): the CRD chart
  // (gateway-crds-helm) makes a release record over the 1 MiB a Secret holds, which CAAPH cannot
  // store (found here; see the e2e's findings)
  const addons: Record<string, Record<string, unknown>> = { certManager: { enabled: true }, flux: { enabled: true }, gatewayApi: { enabled: true, crds: false, implementation: 'traefik' } };
  for (const [chart, row] of o.obtained) {
    if (chart === 'gateway-crds-helm') continue;
    const field = VERSION_FIELD[chart];
    if (field) addons[field[0]] = { ...addons[field[0]], [field[1]]: row.version };
  }
  fs.copyFileSync(o.mirrorCaFile, path.join(o.dir, 'mirror-ca.pem'));
  // read by validation only: nothing here talks to OpenStack
  fs.writeFileSync(path.join(o.dir, 'clouds.yaml'), 'clouds:\n  charts:\n    auth:\n      auth_url: https://keystone.example.test:5000/v3\n    region_name: RegionOne\n');
  const file = path.join(o.dir, 'charts.yaml');
  const lines = [
    'cloud:',
    '  name: charts',
    '  cloudsFile: clouds.yaml',
    'existingManagementCluster:',
    `  kubeconfigFile: ${o.managementKubeconfig}`,
    'chartRepository:',
    `  url: ${o.mirrorUrl}`,
    '  caCertificateFile: mirror-ca.pem',
    'clusters:',
    `  ${o.cluster}:`,
    `    addons: ${JSON.stringify(addons)}`,
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** An object of an API server, or undefined when it answers anything but 200. */
export async function getIfFound(client: KubeClient, p: string): Promise<any> {
  const r = await client.get(p);
  return r.kind === 'response' && r.status === 200 ? (r.body as any) : undefined;
}

/** The HelmChartProxy a HelmReleaseProxy was made from. */
export const proxyOf = (r: any): string => r.metadata.labels?.['helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name'];
/** The conditions that are not True, as text. */
export const conditionText = (r: any): string =>
  (r?.status?.conditions ?? [])
    .filter((c: any) => c.status !== 'True')
    .map((c: any) => `${c.type}: ${c.reason} ${c.message ?? ''}`.trim())
    .join('; ');
/** Release deployed and the HelmReleaseProxy Ready. */
export const deployed = (r: any): boolean => r?.status?.status === 'deployed' && (r.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
