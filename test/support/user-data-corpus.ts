/**
 * Environments of every size the user data can take (proxies, mirrors with and without CAs,
 * trusted CAs, pinned manifests, tool mirrors, SSH keys, long names and labels), seeded, and the
 * exact measure of what synth renders for them: the management VM's document with Terraform's
 * values at their bounds, and each node role's document in CAPI's layout with CAPI's allowance.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KubeObject, buildClusterObjects } from '../../lib/capi';
import { nodeUserDataBytes } from '../../lib/capi/node-user-data-size';
import { parse } from 'yaml';
import { EnvironmentConfig, environmentSchema, findCloudEntry, resolveEnvironment } from '../../lib/config';
import { PROVIDER_MANIFEST_FILES } from '../../lib/config/provider-manifests';
import { DEFAULT_CONTROLLER_VERSIONS as PINNED } from '../../lib/config/versions';
import { renderManagementUserData } from '../../lib/management-vm';
import { managementUserDataProps } from '../../lib/management-vm/environment-props';
import { managementUserDataBytes } from '../../lib/management-vm/user-data-size';
import { inputsFor } from '../capi/fixtures';
import { withDeployAccess } from './deploy-access';

type Random = () => number;
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Random, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
const word = (r: Random, n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 36)]).join('');

/** `count` certificate blocks of random base64 (incompressible, like real ones), about 1.1 KiB each. */
export function fakeCertificates(r: Random, count: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return Array.from({ length: count }, () => {
    const body = Array.from({ length: 17 }, () => Array.from({ length: 64 }, () => alphabet[Math.floor(r() * 64)]).join(''));
    return `-----BEGIN CERTIFICATE-----\n${body.join('\n')}\nAAAA==\n-----END CERTIFICATE-----\n`;
  }).join('');
}

let pemDir: string | undefined;

/** A kubeconfig file for `existingManagementCluster` (its content is not read at validate). */
export function kubeconfigFile(): string {
  pemDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'user-data-pem-'));
  const file = path.join(pemDir, 'kubeconfig');
  fs.writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  return file;
}
/** A PEM file with `count` random certificates; its absolute path. */
export function pemFile(r: Random, count: number): string {
  pemDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'user-data-pem-'));
  const file = path.join(pemDir, `${word(r, 12)}.pem`);
  fs.writeFileSync(file, fakeCertificates(r, count));
  return file;
}

/** Characters a URL path may hold here: the ones the escapes touch (%, Jinja braces) among plain ones. */
const urlPath = (r: Random, n: number) =>
  Array.from({ length: n }, () => pick(r, ['a', 'b', '%', '{', '{{', '{%', '}', '-', '.', '/', '0']))
    .join('')
    .replace(/%\{/g, '%7B'); // Terraform's template start is refused in URLs

/** One environment's YAML (cloud block included), its features drawn from `r`. */
export function corpusEnvironmentYaml(r: Random): string {
  const lines = ['cloud:', '  name: mycloud', '  authUrl: https://keystone.example.test:5000/v3', '  region: RegionOne'];
  if (r() < 0.4) lines.push(`  caCertificateFile: ${pemFile(r, pick(r, [1, 3, 6]))}`);
  const management: string[] = [];
  if (r() < 0.4) management.push(`  trustedCaCertificateFile: ${pemFile(r, pick(r, [1, 5, 12, 20]))}`);
  if (r() < 0.4) management.push(`  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${word(r, 40)} ${word(r, int(r, 1, 60))}@example`, `  sshUsername: ${pick(r, ['ubuntu', 'capi', 'operator_with_long_name'])}`);
  if (r() < 0.3) management.push(`  kindClusterName: k${word(r, int(r, 1, 38))}`);
  if (r() < 0.4) {
    management.push('  providerManifests:', ...(r() < 0.6 ? [`    baseUrl: https://manifests.example.com/${word(r, int(r, 1, 300))}`] : []), `    versions: { clusterApi: ${PINNED.clusterApi}, capo: ${PINNED.capo}, caaph: ${PINNED.caaph} }`, '    sha256:', ...PROVIDER_MANIFEST_FILES.map((f) => `      ${f.key}: ${'a'.repeat(64)}`));
  }
  if (r() < 0.3) management.push('  tools:', `    baseUrl: https://tools.example.com/${word(r, int(r, 1, 300))}`);
  if (management.length > 0) lines.push('management:', ...management);
  if (r() < 0.6) {
    // within what keeps the nodes' proxy drop-ins inline (longer ones are stored gzip+base64; see the test of those)
    const noProxy = Array.from({ length: pick(r, [0, 3, 40, 100]) }, () => `${word(r, int(r, 3, 20))}.example.com`);
    lines.push('proxy:', `  httpProxy: "http://proxy.example.com:3128/${urlPath(r, int(r, 0, pick(r, [10, 100, 300])))}"`, `  noProxy: [${noProxy.join(', ')}]`);
  }
  const mirrors = Array.from({ length: pick(r, [0, 1, 2, 4]) }, (_, i) => {
    const registry = i === 0 && r() < 0.5 ? 'docker.io' : `r${i}-${word(r, int(r, 1, 30))}.example.com`;
    const endpoints = Array.from({ length: int(r, 1, 4) }, () => `"https://mirror.example.com:5000/${urlPath(r, int(r, 0, 120))}"`);
    const ca = r() < 0.5 ? `, caCertificateFile: ${pemFile(r, pick(r, [1, 2, 8]))}` : '';
    return `  - {registry: ${registry}, endpoints: [${endpoints.join(', ')}]${ca}${r() < 0.3 ? ', skipVerify: true' : ''}}`;
  });
  if (mirrors.length > 0) lines.push('registryMirrors:', ...mirrors);
  const labels = Array.from({ length: pick(r, [0, 2, 12]) }, (_, i) => `l${i}: "v${word(r, int(r, 1, 60))}"`);
  lines.push('clusters:', '  demo:', `    controlPlane: {etcdUnsafeFilesystem: ${r() < 0.5}}`, `    nodeGroups: [{name: md-0, labels: {${labels.join(', ')}}}]`, `    addons: {metricsServer: ${r() < 0.7}}`, `    blockMetadataService: ${r() < 0.8}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A corpus environment, resolved without `validate`'s size check (which is what is under test):
 * the schema, then defaults and files, as validate does before it measures.
 */
export function corpusEnvironment(r: Random): EnvironmentConfig {
  pemDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'user-data-pem-'));
  const file = path.join(pemDir, 'test.yaml');
  const spec = environmentSchema.parse(parse(withDeployAccess(corpusEnvironmentYaml(r))));
  return resolveEnvironment('test', file, spec, findCloudEntry);
}

/** What Terraform fills in, as cdktf tokens (measured at their bounds). */
const APPLY_VALUES = { apiServerAddress: '${TfToken[TOKEN.1]}', fixedAddress: '${TfToken[TOKEN.5]}', caCertificatePemBase64: '${TfToken[TOKEN.2]}', caPrivateKeyPemBase64: '${TfToken[TOKEN.3]}' };

/** The management VM's user data as synth renders it, measured; undefined when synth refuses it as too big. */
export function measuredVmBytes(env: EnvironmentConfig): number | undefined {
  const props = managementUserDataProps(env, APPLY_VALUES, 6443);
  try {
    return managementUserDataBytes(renderManagementUserData(props), props);
  } catch (e) {
    if (/expected at most [\d,]+ bytes \(Nova/.test((e as Error).message)) return undefined;
    throw e;
  }
}

/** Each node role's user data (control plane, then each node group) as CAPI renders it, measured; undefined when synth refuses. */
export function measuredNodeBytes(env: EnvironmentConfig, cluster: string): number[] | undefined {
  let objs: KubeObject[];
  try {
    objs = buildClusterObjects(inputsFor(env, cluster, { apiServerFloatingIp: '255.255.255.255' }));
  } catch (e) {
    if (/fit Nova's limit|to fit in 10240 characters/.test((e as Error).message)) return undefined;
    throw e;
  }
  const kcp = (objs.find((o) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec;
  const workers = objs.filter((o) => o.kind === 'KubeadmConfigTemplate').map((o) => (o.spec as any).template.spec);
  return [nodeUserDataBytes(kcp, 'init', [kcp.clusterConfiguration, kcp.initConfiguration]), ...workers.map((w) => nodeUserDataBytes(w, 'worker', [w.joinConfiguration]))];
}
