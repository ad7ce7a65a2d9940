/**
 * cert-manager on a booted workload cluster (issue 36): CAAPH installs the chart from the private
 * chart mirror with the product's values, its images (built here by scripts/local-vm/build-cert-manager)
 * come through the nodes' registry mirror, and cert-manager issues a certificate: a self-signed
 * Issuer and a Certificate applied to the workload cluster, the Certificate Ready and its Secret
 * holding a certificate for the names asked for, with the matching key.
 *
 * The mirror holds cert-manager v1.11.5, not the catalogue's v1.19.4 (scripts/local-charts/lib.sh:
 * why); the suite installs it through the product's `addons.certManager.version`. Its release runs
 * a post-install hook Job (startupapicheck, `cmctl check api`), so "deployed" already means the
 * webhook answered once; the CRDs come from the release itself (the product's `crds.enabled`).
 */
import { createPrivateKey, X509Certificate } from 'crypto';
import { parse } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { mirroredManifest } from './registry-mirror';
import { conditionText, deployed, proxyOf } from './addon-charts';

const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
const ADDON_LABEL = 'capi-openstack-cdktf/addon';
const CM = 'cert-manager.io/v1';
/** The chart's three Deployments (release name cert-manager) and the image each runs. */
const DEPLOYMENTS: Readonly<Record<string, string>> = { 'cert-manager': 'controller', 'cert-manager-webhook': 'webhook', 'cert-manager-cainjector': 'cainjector' };
const CRDS = ['certificates.cert-manager.io', 'certificaterequests.cert-manager.io', 'issuers.cert-manager.io', 'clusterissuers.cert-manager.io', 'orders.acme.cert-manager.io', 'challenges.acme.cert-manager.io'];
/** Where the check's Issuer, Certificate and Secret live. */
const TEST_NAMESPACE = 'cert-manager-e2e';
const COMMON_NAME = 'e2e.cert-manager.test';
const DNS_NAMES = [COMMON_NAME, 'www.e2e.cert-manager.test'];

export interface CertManagerCheck {
  readonly management: KubeClient;
  /** Namespace of the cluster's HelmChartProxies on the management cluster. */
  readonly namespace: string;
  readonly workload: KubeClient;
  /** The chart version the environment asks for (the mirror's); the images carry it as their tag. */
  readonly version: string | undefined;
  readonly log: (line: string) => void;
  readonly findings: string[];
}

export interface CertManagerResult {
  /** Seconds from the HelmReleaseProxy's creation to the release deployed (its hook Job passed). */
  readonly releaseDeployedS: number;
  /** Seconds from the HelmReleaseProxy's creation to the last of the three Deployments Available. */
  readonly deploymentsAvailableS: number;
  /** Seconds from the Certificate applied to it Ready, as observed (polled every 0.5 s). */
  readonly certificateReadyS: number;
  /** The issued certificate's subject and subjectAltName. */
  readonly subject: string;
  readonly subjectAltName: string;
  /** The three durations under the names the suite's timings print. */
  readonly timings: Record<string, number>;
}

const seconds = (from: number, to: number) => Math.round((to - from) / 100) / 10;
const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);

/** The manifest digest the site's registry (the nodes' mirror of quay.io) holds for an image. */
async function mirroredDigest(image: string): Promise<string> {
  const { status, digest, mirror } = await mirroredManifest(image);
  if (status !== 200 || !digest) throw new Error(`${image} is not in the site's registry ${mirror} (HTTP ${status}): scripts/local-vm/build-cert-manager pushes it`);
  return digest;
}

/** The release deployed by CAAPH with the product's values at the environment's version; returns its HelmReleaseProxy. */
async function expectReleaseDeployed(o: CertManagerCheck & { readonly version: string }): Promise<any> {
  const { management, workload } = o;
  const hcps = ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmchartproxies`), 'listing HelmChartProxies', [200]).items as any[];
  const hcp = hcps.find((p) => p.metadata.labels?.[ADDON_LABEL] === 'cert-manager');
  if (!hcp) throw new Error(`no cert-manager HelmChartProxy in ${o.namespace} (labels ${ADDON_LABEL}): addons.certManager is not on`);
  expect({ version: hcp.spec.version, values: parse(hcp.spec.valuesTemplate ?? '{}') }).toEqual({ version: o.version, values: { crds: { enabled: true } } });
  const hrps = async () => ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items as any[];
  return waitFor('the cert-manager release deployed by CAAPH', 12 * 60_000, async () => (await hrps()).find((r) => proxyOf(r) === hcp.metadata.name && deployed(r)), 3_000).catch(async (e) => {
    const r = (await hrps()).find((x) => proxyOf(x) === hcp.metadata.name);
    const pods = ok(await workload.get('/api/v1/namespaces/cert-manager/pods'), 'listing cert-manager pods', [200]).items as any[];
    const states = pods.map((p) => `${p.metadata.name}: ${p.status.phase} ${(p.status.containerStatuses ?? []).map((c: any) => JSON.stringify(c.state)).join(' ')}`);
    throw new Error(`${(e as Error).message}; its HelmReleaseProxy: ${r ? `${r.status?.status ?? 'no status'}: ${conditionText(r)}` : 'none'}; pods: ${states.join('; ') || 'none'}`);
  });
}

/** The release's CRDs (from the product's crds.enabled) and its three Deployments available, each pod on the image built here as the site's registry holds it; returns when the last became Available. */
async function expectDeploymentsOnBuiltImages(o: CertManagerCheck & { readonly version: string }): Promise<number> {
  const { workload, log } = o;
  for (const crd of CRDS) {
    const c = ok(await workload.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`), `reading CRD ${crd}`, [200]);
    expect({ crd, release: c.metadata.annotations?.['meta.helm.sh/release-name'] }).toEqual({ crd, release: 'cert-manager' });
  }
  const images = Object.fromEntries(Object.entries(DEPLOYMENTS).map(([d, name]) => [d, `quay.io/jetstack/cert-manager-${name}:${o.version}`]));
  const available = await waitFor('cert-manager\'s three Deployments available', 5 * 60_000, async () => {
    const ds = await Promise.all(Object.keys(DEPLOYMENTS).map(async (d) => ok(await workload.get(`/apis/apps/v1/namespaces/cert-manager/deployments/${d}`), `reading Deployment ${d}`, [200, 404])));
    return ds.every((d) => condition(d, 'Available')?.status === 'True') ? ds : undefined;
  }, 2_000);
  const pods = ok(await workload.get('/api/v1/namespaces/cert-manager/pods'), 'listing cert-manager pods', [200]).items as any[];
  for (const [d, image] of Object.entries(images)) {
    const pod = pods.find((p) => p.metadata.labels?.['app.kubernetes.io/component'] === DEPLOYMENTS[d] && p.status.phase === 'Running');
    const status = pod?.status.containerStatuses?.[0];
    expect({ deployment: d, image: status?.image, digest: String(status?.imageID ?? '').split('@')[1] }).toEqual({ deployment: d, image, digest: await mirroredDigest(image) });
    log(`${d}: pod ${pod.metadata.name} on ${pod.spec.nodeName} runs ${status.image} (${status.imageID})`);
  }
  return Math.max(...available.map((d: any) => Date.parse(condition(d, 'Available').lastTransitionTime)));
}

/** POST, retried while the API server cannot yet call cert-manager's webhook. */
async function createThroughWebhook(workload: KubeClient, path: string, body: any, what: string): Promise<void> {
  let last = '';
  await waitFor(`${what} accepted by the API server (cert-manager's webhook)`, 3 * 60_000, async () => {
    const res = await workload.request('POST', path, body);
    if (res.kind === 'response' && (res.status === 201 || res.status === 409)) return true;
    last = res.kind === 'error' ? res.reason : `HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
    return undefined;
  }, 2_000).catch((e) => {
    throw new Error(`${(e as Error).message}; last answer: ${last}`);
  });
}

/** A self-signed Issuer and a Certificate → Ready; its Secret holds a certificate for the names asked for, with the key beside it. */
async function expectCertificateIssued(workload: KubeClient, log: (line: string) => void): Promise<{ readyS: number; x509: X509Certificate }> {
  ok(await workload.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEST_NAMESPACE } }), `creating namespace ${TEST_NAMESPACE}`, [201, 409]);
  await createThroughWebhook(workload, `/apis/${CM}/namespaces/${TEST_NAMESPACE}/issuers`, { apiVersion: CM, kind: 'Issuer', metadata: { name: 'self-signed', namespace: TEST_NAMESPACE }, spec: { selfSigned: {} } }, 'the self-signed Issuer');
  const spec = { secretName: 'e2e-tls', commonName: COMMON_NAME, dnsNames: DNS_NAMES, privateKey: { algorithm: 'ECDSA', size: 256 }, issuerRef: { name: 'self-signed', kind: 'Issuer' } };
  await createThroughWebhook(workload, `/apis/${CM}/namespaces/${TEST_NAMESPACE}/certificates`, { apiVersion: CM, kind: 'Certificate', metadata: { name: 'e2e', namespace: TEST_NAMESPACE }, spec }, 'the Certificate');
  const applied = Date.now();
  let lastCert: any;
  await waitFor('the Certificate Ready', 5 * 60_000, async () => {
    lastCert = ok(await workload.get(`/apis/${CM}/namespaces/${TEST_NAMESPACE}/certificates/e2e`), 'reading the Certificate', [200]);
    return condition(lastCert, 'Ready')?.status === 'True' ? lastCert : undefined;
  }, 500).catch((e) => {
    throw new Error(`${(e as Error).message}; its conditions: ${JSON.stringify(lastCert?.status?.conditions ?? [])}`);
  });
  const readyS = seconds(applied, Date.now());
  const secret = ok(await workload.get(`/api/v1/namespaces/${TEST_NAMESPACE}/secrets/e2e-tls`), 'reading Secret e2e-tls', [200]);
  const x509 = new X509Certificate(Buffer.from(secret.data['tls.crt'], 'base64'));
  const key = createPrivateKey(Buffer.from(secret.data['tls.key'], 'base64'));
  expect({
    type: secret.type,
    subject: x509.subject,
    sans: (x509.subjectAltName ?? '').split(', ').sort(),
    selfSigned: x509.issuer === x509.subject && x509.verify(x509.publicKey),
    keyMatches: x509.checkPrivateKey(key),
    keyType: x509.publicKey.asymmetricKeyType,
    validNow: Date.parse(x509.validFrom) <= Date.now() && Date.now() < Date.parse(x509.validTo),
  }).toEqual({ type: 'kubernetes.io/tls', subject: `CN=${COMMON_NAME}`, sans: DNS_NAMES.map((n) => `DNS:${n}`).sort(), selfSigned: true, keyMatches: true, keyType: 'ec', validNow: true });
  log(`certificate issued by cert-manager: subject ${x509.subject}, ${x509.subjectAltName}, valid ${x509.validFrom} → ${x509.validTo}, serial ${x509.serialNumber}`);
  return { readyS, x509 };
}

export async function expectCertManagerIssues(o: CertManagerCheck): Promise<CertManagerResult> {
  const version = o.version;
  if (!version) throw new Error('the chart mirror holds no cert-manager chart (scripts/local-charts report)');
  const release = await expectReleaseDeployed({ ...o, version });
  const created = Date.parse(release.metadata.creationTimestamp);
  const releaseDeployedS = seconds(created, Date.parse(condition(release, 'Ready')?.lastTransitionTime ?? new Date().toISOString()));
  o.log(`cert-manager release ${release.spec.chartName}@${release.spec.version} deployed ${releaseDeployedS}s after its HelmReleaseProxy was created`);
  const deploymentsAvailableS = seconds(created, await expectDeploymentsOnBuiltImages({ ...o, version }));
  const { readyS: certificateReadyS, x509 } = await expectCertificateIssued(o.workload, o.log);
  o.log(`cert-manager: HelmReleaseProxy → deployed ${releaseDeployedS}s, → Deployments available ${deploymentsAvailableS}s; Certificate applied → Ready ${certificateReadyS}s`);
  o.findings.push(`cert-manager: chart ${version} from the mirror (the catalogue's pin is not obtainable: scripts/local-charts report), images built here (scripts/local-vm/build-cert-manager), release deployed ${releaseDeployedS}s after its HelmReleaseProxy, a self-signed certificate Ready ${certificateReadyS}s after its Certificate`);
  const timings = { 'cert-manager: HelmReleaseProxy → release deployed': releaseDeployedS, 'cert-manager: HelmReleaseProxy → Deployments available': deploymentsAvailableS, 'cert-manager: Certificate applied → Ready': certificateReadyS };
  return { releaseDeployedS, deploymentsAvailableS, certificateReadyS, subject: x509.subject, subjectAltName: x509.subjectAltName ?? '', timings };
}
