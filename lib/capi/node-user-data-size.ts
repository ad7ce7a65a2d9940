/**
 * A node's user data against Nova's limit (see config/user-data-limits.ts): what CAPI renders from
 * our files, commands and kubeadm settings, measured, plus a documented allowance for what only
 * CAPI adds (certificates, the rest of the kubeadm configuration).
 */
import { stringify } from 'yaml';
import { CAPI_CONTROL_PLANE_ADDITIONS_BYTES, CAPI_WORKER_ADDITIONS_BYTES, NOVA_USER_DATA_BASE64_LIMIT, NOVA_USER_DATA_LIMIT_BYTES, formatBytes } from '../config/user-data-limits';
import { NodeBootstrapParts, NodeBootstrapRole, capiCloudConfig } from './node-user-data';

/** What CAPI adds for `role` beyond our parts. */
export function capiAdditionsBytes(role: NodeBootstrapRole): number {
  return role === 'worker' ? CAPI_WORKER_ADDITIONS_BYTES : CAPI_CONTROL_PLANE_ADDITIONS_BYTES;
}

/** Bytes of the user data of a `role` node: our parts in CAPI's layout, our kubeadm settings as YAML, CAPI's additions. */
export function nodeUserDataBytes(parts: NodeBootstrapParts, role: NodeBootstrapRole, kubeadmSettings: readonly unknown[]): number {
  const kubeadmYaml = kubeadmSettings.map((s) => stringify(s, { lineWidth: 0 })).join('---\n');
  return Buffer.byteLength(capiCloudConfig(parts, role, { kubeadmYaml }), 'utf8') + capiAdditionsBytes(role);
}

/** Throws when a node's user data would not fit, naming the nodes, the measured size, the limit and the largest files. */
export function checkNodeUserDataSize(nodes: string, parts: NodeBootstrapParts, role: NodeBootstrapRole, kubeadmSettings: readonly unknown[]): void {
  const bytes = nodeUserDataBytes(parts, role, kubeadmSettings);
  if (bytes <= NOVA_USER_DATA_LIMIT_BYTES) return;
  const largest = [...(parts.files ?? [])]
    .sort((a, b) => b.content.length - a.content.length)
    .slice(0, 3)
    .map((f) => `${f.path} ${formatBytes(Buffer.byteLength(f.content, 'utf8'))}`);
  throw new Error(
    `${nodes}: expected the user data of each node to fit Nova's limit of ${formatBytes(NOVA_USER_DATA_LIMIT_BYTES)} (${NOVA_USER_DATA_BASE64_LIMIT} characters of base64), found about ${formatBytes(bytes)} (${formatBytes(capiAdditionsBytes(role))} of them for what Cluster API adds: certificates, the kubeadm configuration); largest files: ${largest.join(', ')}: shrink cloud.caCertificateFile, the registry mirrors' CAs or their number`,
  );
}
