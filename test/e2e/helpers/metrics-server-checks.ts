/**
 * metrics-server on a booted workload cluster (issue 36): CAAPH installs the chart from the
 * private chart mirror with the product's values, its image (built here) comes through the
 * nodes' registry mirror, and `kubectl top nodes` answers for every Node, metrics-server
 * verifying each kubelet's serving certificate against the cluster CA (the product sets no
 * --kubelet-insecure-tls).
 *
 * One add-on the product pairs with metrics-server cannot run here, and the check stands in for it
 * with its rule taken from the product, not invented here: kubelet-csr-approver (neither its chart
 * nor its binary's module is served by the Go module proxy). The product turns on
 * `serverTLSBootstrap`, so kubelets serve nothing until their `kubernetes.io/kubelet-serving` CSRs
 * are approved. The check approves them only when they satisfy the product's own values for that
 * chart (its HelmChartProxy's providerRegex and providerIpPrefixes), after recording that every
 * Node had one pending and none approved. A kubelet asks only once its Node has an IP address
 * (`--cloud-provider=external`, no `--node-ip`): OCCM sets them (occm-checks.ts), before this runs.
 */
import { spawnSync } from 'child_process';
import { X509Certificate } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { localKubeBinDir } from '../support/workload-process';
import { conditionText, deployed, proxyOf } from './addon-charts';

const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const ADDON_LABEL = 'capi-openstack-cdktf/addon';

export interface MetricsServerCheck {
  readonly management: KubeClient;
  readonly namespace: string;
  readonly cluster: string;
  readonly workload: KubeClient;
  /** Node name → the fixed IP of its server's port. */
  readonly nodes: ReadonlyMap<string, string>;
  /** The image (name:tag) built here that the chart's default values should ask for. */
  readonly image: string;
  readonly log: (line: string) => void;
  readonly findings: string[];
}

export interface MetricsServerResult {
  /** Seconds from the HelmReleaseProxy's creation to the release deployed. */
  readonly releaseDeployedS: number;
  /** Seconds from the approver stand-in's start (CSRs approved from then on) to the pod Ready and to `kubectl top nodes` listing every Node. */
  readonly podReadyS: number;
  readonly topAnswersS: number;
  /** `kubectl top nodes` as printed. */
  readonly top: string;
  /** Every HelmReleaseProxy of the cluster: chart@version, release status, what is not Ready. */
  readonly releases: readonly string[];
  readonly approvedCsrs: number;
}

/** The IPs and DNS names a PEM certificate request asks for (openssl). */
function csrNames(pem: string): { ips: string[]; dns: string[] } {
  const r = spawnSync('openssl', ['req', '-noout', '-text'], { input: pem, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl req failed: ${r.stderr}`);
  return { ips: [...r.stdout.matchAll(/IP Address:([0-9a-fA-F.:]+)/g)].map((m) => m[1]), dns: [...r.stdout.matchAll(/DNS:([^,\s]+)/g)].map((m) => m[1]) };
}

function ipv4InCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip) || !/^\d+\.\d+\.\d+\.\d+$/.test(base)) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(base) / size);
}

/** Why the product's kubelet-csr-approver values would refuse this CSR ('' when they allow it). */
export function refusalByApproverValues(csr: any, names: { ips: string[]; dns: string[] }, values: { providerRegex: string; providerIpPrefixes: string[] }): string {
  const user: string = csr.spec.username ?? '';
  const node = user.startsWith('system:node:') ? user.slice('system:node:'.length) : '';
  if (!node) return `requested by ${user}, not a node`;
  if (!new RegExp(values.providerRegex).test(node)) return `node name ${node} does not match providerRegex ${values.providerRegex}`;
  const outside = names.ips.filter((ip) => !values.providerIpPrefixes.some((c) => ipv4InCidr(ip, c)));
  if (outside.length > 0) return `IP SANs ${outside.join(', ')} outside providerIpPrefixes ${values.providerIpPrefixes.join(', ')}`;
  const foreign = names.dns.filter((d) => d !== node);
  if (foreign.length > 0) return `DNS SANs ${foreign.join(', ')} are not the node's name`;
  return '';
}

const seconds = (from: number, to: number) => Math.round((to - from) / 100) / 10;

/** kubelet-csr-approver's stand-in: approves the CSRs the product's values for it allow, adds why to `refused` for the others; returns how many it approved. */
async function approveByProductRules(workload: KubeClient, pending: readonly any[], values: { providerRegex: string; providerIpPrefixes: string[] }, refused: string[]): Promise<number> {
  let approvedNow = 0;
  for (const c of pending) {
    const why = refusalByApproverValues(c, csrNames(Buffer.from(c.spec.request, 'base64').toString('utf8')), values);
    if (why) {
      if (!refused.includes(`${c.metadata.name}: ${why}`)) refused.push(`${c.metadata.name}: ${why}`);
      continue;
    }
    const body = { ...c, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'E2eStandInForKubeletCsrApprover', message: 'matches the product\'s kubelet-csr-approver values' }] } };
    ok(await workload.request('PUT', `${CSR}/${c.metadata.name}/approval`, body), `approving ${c.metadata.name}`, [200]);
    approvedNow++;
  }
  return approvedNow;
}

export async function expectMetricsServerAnswers(o: MetricsServerCheck): Promise<MetricsServerResult> {
  const { management, workload, log } = o;
  const hrps = async () => ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items as any[];
  const hcps = ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmchartproxies`), 'listing HelmChartProxies', [200]).items as any[];
  const hcpOf = (addon: string) => hcps.find((p) => p.metadata.labels?.[ADDON_LABEL] === addon);
  const metricsHcp = hcpOf('metrics-server');
  if (!metricsHcp) throw new Error(`no metrics-server HelmChartProxy in ${o.namespace} (labels ${ADDON_LABEL})`);

  // the release, installed by CAAPH from the mirror
  const release = await waitFor('the metrics-server release deployed by CAAPH', 10 * 60_000, async () => (await hrps()).find((r) => proxyOf(r) === metricsHcp.metadata.name && deployed(r)), 3_000).catch(async (e) => {
    const r = (await hrps()).find((x) => proxyOf(x) === metricsHcp.metadata.name);
    throw new Error(`${(e as Error).message}; its HelmReleaseProxy: ${r ? `${r.status?.status ?? 'no status'}: ${conditionText(r)}` : 'none'}`);
  });
  const created = Date.parse(release.metadata.creationTimestamp);
  const readyCondition = (release.status.conditions ?? []).find((c: any) => c.type === 'Ready');
  const releaseDeployedS = seconds(created, Date.parse(readyCondition?.lastTransitionTime ?? new Date().toISOString()));
  const releases = (await hrps()).map((r) => `${r.spec.chartName}@${r.spec.version}: ${r.status?.status ?? 'not installed'}${deployed(r) ? '' : ` (${conditionText(r).slice(0, 300)})`}`);
  for (const r of releases) log(`release ${r}`);

  // the product's values: no --kubelet-insecure-tls, so metrics-server verifies the kubelets
  const deployment = ok(await workload.get('/apis/apps/v1/namespaces/kube-system/deployments/metrics-server'), 'reading the metrics-server Deployment', [200]);
  const container = deployment.spec.template.spec.containers[0];
  expect({ image: container.image, insecure: (container.args ?? []).filter((a: string) => a.startsWith('--kubelet-insecure-tls')) }).toEqual({ image: o.image, insecure: [] });
  log(`metrics-server runs ${container.image} with ${(container.args ?? []).join(' ')}`);

  // kubelet-csr-approver's stand-in, with the product's rules for it
  const approver = hcpOf('kubelet-csr-approver');
  if (!approver) throw new Error('no kubelet-csr-approver HelmChartProxy: the product pairs it with metrics-server');
  const values = parse(approver.spec.valuesTemplate) as { providerRegex: string; providerIpPrefixes: string[] };
  const servingCsrs = async () => (ok(await workload.get(CSR), 'listing CSRs', [200]).items as any[]).filter((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving');
  const standInsAt = Date.now();
  const approved = (c: any) => (c.status?.conditions ?? []).some((x: any) => x.type === 'Approved');
  const before = await waitFor('a pending kubelet-serving CSR of every Node', 5 * 60_000, async () => {
    const cs = await servingCsrs();
    const pending = new Set(cs.filter((c) => !approved(c)).map((c) => c.spec.username));
    return [...o.nodes.keys()].every((n) => pending.has(`system:node:${n}`)) ? cs : undefined;
  }, 3_000);
  // nothing else approves them: the product's approver is not installed here. (Before OCCM gave the
  // Node an IP address the kubelet asked for no serving certificate at all: it needs one IP SAN,
  // AllowDNSOnlyNodeCSR being off since v1.31.)
  expect(before.filter(approved).map((c) => c.metadata.name)).toEqual([]);
  const kubeconfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-e2e-')), 'kubeconfig');
  const secret = ok(await management.get(`/api/v1/namespaces/${o.namespace}/secrets/${o.cluster}-kubeconfig`), 'reading the kubeconfig Secret', [200]);
  fs.writeFileSync(kubeconfig, Buffer.from(secret.data.value, 'base64'), { mode: 0o600 });
  const kubectl = path.join(localKubeBinDir(), 'kubectl');
  let approvedCsrs = 0;
  const refused: string[] = [];
  let podsReadyAt = 0;
  let lastTop = '';
  try {
    const top = await waitFor('kubectl top nodes to list every Node', 10 * 60_000, async () => {
      approvedCsrs += await approveByProductRules(workload, (await servingCsrs()).filter((x) => !approved(x)), values, refused);
      if (!podsReadyAt) {
        const d = ok(await workload.get('/apis/apps/v1/namespaces/kube-system/deployments/metrics-server'), 'reading the metrics-server Deployment', [200]);
        if ((d.status?.readyReplicas ?? 0) >= 1) podsReadyAt = Date.now();
      }
      const r = spawnSync(kubectl, ['--kubeconfig', kubeconfig, 'top', 'nodes', '--no-headers'], { encoding: 'utf8', timeout: 30_000 });
      lastTop = `${r.stdout}${r.stderr}`.trim();
      const listed = new Set(r.stdout.split('\n').filter((l) => /\d+m\s+\d+%\s+\d+Mi\s+\d+%/.test(l)).map((l) => l.split(/\s+/)[0]));
      return r.status === 0 && [...o.nodes.keys()].every((n) => listed.has(n)) ? r.stdout.trim() : undefined;
    }, 5_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last kubectl top: ${lastTop.slice(0, 500)}; CSRs refused by the product's approver values: ${refused.join('; ') || 'none'}`);
    });
    const done = Date.now();
    log(`kubectl top nodes:\n${top}`);
    expect(refused).toEqual([]);
    // each kubelet now serves a certificate of the cluster's signer naming its InternalIP
    const issued = (await servingCsrs()).filter((c) => c.status?.certificate).map((c) => new X509Certificate(Buffer.from(c.status.certificate, 'base64')));
    for (const [name, ip] of o.nodes) expect({ node: name, issuedWithIp: issued.some((x) => x.subject.includes(`system:node:${name}`) && (x.subjectAltName ?? '').includes(`IP Address:${ip}`)) }).toEqual({ node: name, issuedWithIp: true });
    return { releaseDeployedS, podReadyS: seconds(standInsAt, podsReadyAt || done), topAnswersS: seconds(standInsAt, done), top, releases, approvedCsrs };
  } finally {
    fs.rmSync(path.dirname(kubeconfig), { recursive: true, force: true });
  }
}
