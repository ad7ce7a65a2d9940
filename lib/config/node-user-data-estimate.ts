/**
 * An upper bound of a workload node's user data, from the environment alone, for `validate` (the
 * builders that write the files live above config; at synth they measure the real thing, see
 * capi/node-user-data-size.ts). Each file is bounded from the values it carries, in Cluster API's
 * layout (six spaces before each line, a five-line `write_files` entry); certificate files are
 * measured as the builders store them (inline, or gzip+base64 past CAPI's 10240 characters).
 * test/config/user-data-size.test.ts holds the bound against the real measure.
 */
import { gzipSync } from 'zlib';
import { jinjaLiteralGrowth } from './jinja-text';
import { nodeLabelsFlag, splitNodeLabels } from './kubelet-labels';
import type { EnvironmentConfig, ResolvedCluster } from './resolve';
import { CAPI_CONTROL_PLANE_ADDITIONS_BYTES, CAPI_WORKER_ADDITIONS_BYTES, UserDataEstimate, UserDataPart } from './user-data-limits';

/** CAPI's limit of an inline file content, in characters (kubeadm bootstrap `files[].content`). */
export const NODE_FILE_CONTENT_LIMIT = 10240;

/**
 * Our own part of a node's user data with no proxy, mirror or CA: the etcd maintenance files, the
 * kubelet serving-certificate patch, the kubeadm settings and commands (measured 4159 bytes for a
 * control-plane node, 1049 for a worker; rounded up).
 */
const OWN_BASE_BYTES = { controlPlane: 4400, worker: 1200 } as const;
/** The barrier-less etcd mount's script and unit (measured 1419 bytes). */
const ETCD_UNSAFE_FS_BYTES = 1500;
/** The metadata block's script, unit and commands, on every node (measured 3131 bytes, 3101 beside another daemon-reload). */
const METADATA_BLOCK_BYTES = 3200;

/**
 * Upper bound of the user data of one node of `cluster`: a control-plane node (`group` undefined)
 * or a node of `cluster.spec.nodeGroups[group]`.
 */
export function nodeUserDataEstimate(env: EnvironmentConfig, cluster: ResolvedCluster, group?: number): UserDataEstimate {
  const at = ['clusters', cluster.name];
  const own: UserDataPart =
    group === undefined
      ? { path: [...at, 'controlPlane'], fixed: true, bytes: CAPI_CONTROL_PLANE_ADDITIONS_BYTES + OWN_BASE_BYTES.controlPlane + (cluster.spec.controlPlane.etcdUnsafeFilesystem ? ETCD_UNSAFE_FS_BYTES : 0) }
      : { path: [...at, 'nodeGroups', group], fixed: true, bytes: CAPI_WORKER_ADDITIONS_BYTES + OWN_BASE_BYTES.worker + nodeLabelsFlag(splitNodeLabels(cluster.spec.nodeGroups[group].labels).kubelet).length };
  const parts: UserDataPart[] = [
    own,
    ...(cluster.spec.blockMetadataService ? [{ path: [...at, 'blockMetadataService'], fixed: true, bytes: METADATA_BLOCK_BYTES }] : []),
    ...proxyParts(env, cluster),
    ...env.registryMirrors.flatMap((m, i) => [
      { path: ['registryMirrors', i, 'endpoints'], bytes: entryBytes(46 + m.registry.length, hostsTomlLength(m.registry, m.endpoints, m.caCertificatePem !== undefined), 3 + 6 * m.endpoints.length) },
      ...(m.caCertificatePem ? [{ path: ['registryMirrors', i, 'caCertificateFile'], bytes: fileEntryBytes(`/etc/containerd/certs.d/${m.registry}/ca.crt`, m.caCertificatePem) }] : []),
    ]),
    ...(env.cloud.caCertificatePem ? [{ path: env.spec.cloud.caCertificateFile ? ['cloud', 'caCertificateFile'] : ['cloud', 'name'], bytes: fileEntryBytes('/usr/local/share/ca-certificates/openstack-ca.crt', env.cloud.caCertificatePem) }] : []),
  ];
  return { bytes: parts.reduce((n, p) => n + p.bytes, 0), parts };
}

/** A certificate file as the builders store it: inline, or gzip+base64 (one line) past CAPI's limit. */
export function storedCertificateFile(pem: string): { readonly length: number; readonly inline: boolean } {
  if (pem.length <= NODE_FILE_CONTENT_LIMIT) return { length: Buffer.byteLength(pem, 'utf8'), inline: true };
  return { length: gzipSync(Buffer.from(pem, 'utf8'), { level: 9 }).toString('base64').length, inline: false };
}

function fileEntryBytes(path: string, pem: string): number {
  const stored = storedCertificateFile(pem);
  return entryBytes(path.length, stored.length, stored.inline ? pem.split('\n').length : 1);
}

/** `-   path:`, encoding, owner, permissions, `content: |` and six spaces before each content line. */
function entryBytes(pathLength: number, contentBytes: number, lines: number): number {
  return 100 + pathLength + contentBytes + 7 * lines;
}

/** The two proxy drop-ins (containerd, kubelet) and their restart commands. */
function proxyParts(env: EnvironmentConfig, cluster: ResolvedCluster): UserDataPart[] {
  const proxy = env.spec.proxy.httpProxy;
  if (!proxy) return [];
  const net = cluster.spec.network;
  // the builders' own entries; the API's floating IP is known at apply time only (at most 15 characters)
  const builtIn = ['localhost', '127.0.0.1', '::1', '169.254.169.254', '.svc', '.cluster.local', net.podCidr, net.serviceCidr, net.nodeCidr, env.spec.network.managementCidr, '255.255.255.255'];
  const noProxy = [...builtIn, ...env.spec.proxy.noProxy].join(',');
  // systemd's %% and the Jinja escape, as the drop-in writes them
  const p = Buffer.byteLength(proxy, 'utf8') + (proxy.match(/%/g)?.length ?? 0);
  const content = 120 + 4 * p + 2 * noProxy.length + 4 * jinjaLiteralGrowth(`${proxy}"`);
  const stored = Math.min(content, NODE_FILE_CONTENT_LIMIT);
  return [{ path: ['proxy'], bytes: 2 * entryBytes(52, stored, stored === content ? 5 : 1) + 80 }];
}

/**
 * Characters of containerd's hosts.toml of one mirrored registry, at most (escaped control
 * characters take six, an escaped Jinja `{` nine). `validate` keeps it under CAPI's inline limit.
 */
export function hostsTomlLength(registry: string, endpoints: readonly string[], withCa: boolean): number {
  const perEndpoint = endpoints.map((e) => Buffer.byteLength(e, 'utf8') + 6 * (e.match(/[\u0000-\u001f\u007f]/g)?.length ?? 0) + jinjaLiteralGrowth(e) + 90 + (withCa ? 40 + registry.length : 0));
  return 120 + 2 * registry.length + perEndpoint.reduce((n, b) => n + b, 0);
}
