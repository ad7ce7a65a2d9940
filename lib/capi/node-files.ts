/**
 * Files and commands every node gets through cloud-init (kubeadm bootstrap `files`):
 * registry mirrors (containerd hosts.toml), outbound proxy (systemd drop-ins), the OpenStack CA,
 * and the kubelet configuration patch for serving certificates.
 */
import { gzipSync } from 'zlib';
import { EnvironmentConfig, ResolvedCluster, ResolvedRegistryMirror } from '../config';
import { jinjaLiteral } from '../config/jinja-text';
import { NODE_FILE_CONTENT_LIMIT } from '../config/node-user-data-estimate';
import { systemdEnvironmentLine } from '../config/systemd-text';
import { tomlBasicString } from '../config/toml-text';

/** One entry of `kubeadmConfigSpec.files` (CAPI v1beta2 File). */
export interface NodeFile {
  readonly path: string;
  readonly content: string;
  readonly owner?: string;
  readonly permissions?: string;
  readonly encoding?: 'base64' | 'gzip' | 'gzip+base64';
}

/** CAPI limits inline file content to this many characters. */
export const MAX_FILE_CONTENT = NODE_FILE_CONTENT_LIMIT;

/**
 * A file entry. Inline content is escaped for the Jinja template CAPI makes of the node's user data
 * (see jinja-text.ts); content longer than CAPI's inline limit is stored gzip+base64 instead, which
 * cloud-init decodes after rendering (deterministic: the gzip header carries no timestamp). Throws
 * when even that does not fit.
 */
export function nodeFile(path: string, content: string, permissions = '0644', owner = 'root:root'): NodeFile {
  const inline = jinjaLiteral(content);
  if (inline.length <= MAX_FILE_CONTENT) return { path, owner, permissions, content: inline };
  const packed = gzipSync(Buffer.from(content, 'utf8'), { level: 9 }).toString('base64');
  if (packed.length > MAX_FILE_CONTENT) {
    throw new Error(`expected the node file ${path} to fit in ${MAX_FILE_CONTENT} characters after gzip+base64, found ${packed.length}: shorten what it carries (a CA bundle, proxy.noProxy)`);
  }
  return { path, owner, permissions, encoding: 'gzip+base64', content: packed };
}

/**
 * A value written into a unit file, TOML or a path stays one token. The schema already guarantees
 * it; this keeps an EnvironmentConfig put together by hand from adding lines of its own.
 */
function oneToken(value: string, field: string): string {
  if (!/^[^\s"'\\`]+$/.test(value)) {
    throw new Error(`${field}: expected one token without spaces, control characters, quotes, backslashes or "\`", found ${JSON.stringify(value.slice(0, 60))}${value.length > 60 ? ` (${value.length} characters)` : ''}`);
  }
  return value;
}

/** Where containerd looks for per-registry hosts.toml (config_path of the CAPI node images). */
export const CONTAINERD_CERTS_DIR = '/etc/containerd/certs.d';

/** The upstream server of a registry as containerd names it. */
function registryServer(registry: string): string {
  return registry === 'docker.io' ? 'https://registry-1.docker.io' : `https://${registry}`;
}

/** hosts.toml of one mirrored registry (+ its CA file). */
export function nodeRegistryMirrorFiles(mirror: ResolvedRegistryMirror): NodeFile[] {
  const dir = `${CONTAINERD_CERTS_DIR}/${oneToken(mirror.registry, 'registryMirrors.registry')}`;
  const caPath = mirror.caCertificatePem ? `${dir}/ca.crt` : undefined;
  const lines = [`# Managed by capi-openstack-cdktf: mirrors of ${mirror.registry}, tried in order.`, `server = ${tomlBasicString(registryServer(mirror.registry))}`, ''];
  for (const endpoint of mirror.endpoints) {
    const url = new URL(oneToken(endpoint, 'registryMirrors.endpoints'));
    lines.push(`[host.${tomlBasicString(endpoint)}]`);
    lines.push('  capabilities = ["pull", "resolve"]');
    // An endpoint with an API path (…/v2/…) is used as given instead of containerd appending /v2.
    if (/\/v2(\/|$)/.test(url.pathname)) lines.push('  override_path = true');
    if (caPath) lines.push(`  ca = ${tomlBasicString(caPath)}`);
    if (mirror.skipVerify) lines.push('  skip_verify = true');
    lines.push('');
  }
  const files = [nodeFile(`${dir}/hosts.toml`, lines.join('\n'))];
  if (caPath && mirror.caCertificatePem) files.push(nodeFile(caPath, mirror.caCertificatePem));
  return files;
}

/**
 * NO_PROXY of the nodes: loopback, the metadata service, in-cluster names, the cluster's pod, service
 * and node networks, the management network, the API endpoint, then the operator's entries. Deduplicated, order kept.
 */
export function noProxyEntries(env: EnvironmentConfig, cluster: ResolvedCluster, apiServerAddress?: string): string[] {
  const net = cluster.spec.network;
  const all = [
    'localhost',
    '127.0.0.1',
    '::1',
    '169.254.169.254',
    '.svc',
    '.cluster.local',
    net.podCidr,
    net.serviceCidr,
    net.nodeCidr,
    env.spec.network.managementCidr,
    ...(apiServerAddress ? [apiServerAddress] : []),
    ...env.spec.proxy.noProxy,
  ];
  return [...new Set(all)];
}

/** systemd drop-ins giving containerd and kubelet the proxy; none when no proxy is configured. */
export function proxyFiles(env: EnvironmentConfig, cluster: ResolvedCluster, apiServerAddress?: string): NodeFile[] {
  const proxy = env.spec.proxy.httpProxy;
  if (!proxy) return [];
  oneToken(proxy, 'proxy.httpProxy');
  const noProxy = noProxyEntries(env, cluster, apiServerAddress)
    .map((e) => oneToken(e, 'proxy.noProxy'))
    .join(',');
  const content = [
    '# Managed by capi-openstack-cdktf: outbound proxy.',
    '[Service]',
    systemdEnvironmentLine([['HTTP_PROXY', proxy], ['HTTPS_PROXY', proxy], ['NO_PROXY', noProxy]]),
    systemdEnvironmentLine([['http_proxy', proxy], ['https_proxy', proxy], ['no_proxy', noProxy]]),
    '',
  ].join('\n');
  return ['containerd', 'kubelet'].map((unit) => nodeFile(`/etc/systemd/system/${unit}.service.d/http-proxy.conf`, content));
}

/** Path of the OpenStack API CA on the nodes (added to the system trust store). */
export const OPENSTACK_CA_PATH = '/usr/local/share/ca-certificates/openstack-ca.crt';

export function openstackCaFiles(env: EnvironmentConfig): NodeFile[] {
  return env.cloud.caCertificatePem ? [nodeFile(OPENSTACK_CA_PATH, env.cloud.caCertificatePem)] : [];
}

/** kubeadm patches directory (init and join configurations point here). */
export const KUBEADM_PATCHES_DIR = '/etc/kubernetes/patches';

/**
 * Kubelet serving certificates from the cluster CA (CSR signer kubernetes.io/kubelet-serving) instead of
 * self-signed ones, so metrics-server can verify kubelets without `--kubelet-insecure-tls`.
 * The CSRs are approved by kubelet-csr-approver (installed with metrics-server).
 */
export function kubeletServingCertFiles(): NodeFile[] {
  return [nodeFile(`${KUBEADM_PATCHES_DIR}/kubeletconfiguration0+strategic.yaml`, 'serverTLSBootstrap: true\n')];
}

/** Everything common to control-plane and worker nodes. */
export function commonNodeFiles(env: EnvironmentConfig, cluster: ResolvedCluster, apiServerAddress: string, servingCerts: boolean): NodeFile[] {
  return [
    ...env.registryMirrors.flatMap(nodeRegistryMirrorFiles),
    ...proxyFiles(env, cluster, apiServerAddress),
    ...openstackCaFiles(env),
    ...(servingCerts ? kubeletServingCertFiles() : []),
  ];
}

/** Commands that make the files effective before kubeadm runs. */
export function commonPreKubeadmCommands(env: EnvironmentConfig): string[] {
  const cmds: string[] = [];
  if (env.cloud.caCertificatePem) cmds.push('update-ca-certificates');
  // hosts.toml files are read per pull; only the proxy drop-ins need a restart
  if (env.spec.proxy.httpProxy) cmds.push('systemctl daemon-reload', 'systemctl restart containerd');
  return cmds;
}
