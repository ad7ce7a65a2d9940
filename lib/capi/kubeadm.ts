/**
 * Kubeadm bootstrap configuration shared by the control plane (KubeadmControlPlane) and the node
 * groups (KubeadmConfigTemplate): kubelet flags, node registration, node files.
 */
import { ClusterSpec } from '../config';
import { labelKeyProblem, labelValueProblem } from '../config/node-labels';
import { KUBEADM_PATCHES_DIR, NodeFile } from './node-files';

/** A `{name, value}` argument (CAPI v1beta2 Arg). */
export interface Arg {
  readonly name: string;
  readonly value: string;
}

/** Label domains CAPI keeps in sync from Machine metadata onto the Node (no kubelet flag needed). */
export const CAPI_SYNCED_LABEL_DOMAINS: readonly string[] = ['node-role.kubernetes.io', 'node-restriction.kubernetes.io', 'node.cluster.x-k8s.io'];

function labelDomain(key: string): string {
  return key.includes('/') ? key.split('/')[0] : '';
}

function isCapiSynced(key: string): boolean {
  const domain = labelDomain(key);
  return CAPI_SYNCED_LABEL_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

/**
 * Node labels of a group, split by how they reach the Node: CAPI-synced domains go on the Machine
 * template (changeable in place), all others through the kubelet `--node-labels` flag (a change rolls the group).
 */
export function splitNodeLabels(labels: Readonly<Record<string, string>>): { machine: Record<string, string>; kubelet: Record<string, string> } {
  const machine: Record<string, string> = {};
  const kubelet: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) (isCapiSynced(key) ? machine : kubelet)[key] = labels[key];
  return { machine, kubelet };
}

/** Kubelet flags: external cloud provider (OCCM) and the provider id CAPI matches Nodes to Machines with. */
export function kubeletExtraArgs(nodeLabels: Readonly<Record<string, string>> = {}): Arg[] {
  const args: Arg[] = [
    { name: 'cloud-provider', value: 'external' },
    { name: 'provider-id', value: "openstack:///'{{ instance_id }}'" },
  ];
  // the flag is `k=v,k=v`: only valid labels keep it to the labels given (schema-checked; hand-made inputs too)
  for (const [k, v] of Object.entries(nodeLabels)) {
    const problem = labelKeyProblem(k) ?? labelValueProblem(v);
    if (problem) throw new Error(`node label ${JSON.stringify(k)}: ${problem}, found ${JSON.stringify(`${k}=${v}`).slice(0, 80)}`);
  }
  const labels = Object.keys(nodeLabels)
    .sort()
    .map((k) => `${k}=${nodeLabels[k]}`)
    .join(',');
  if (labels) {
    if (labels.length > 1024) throw new Error(`expected the node labels to fit in 1024 characters as a kubelet flag, found ${labels.length}`);
    args.push({ name: 'node-labels', value: labels });
  }
  return args;
}

export function nodeRegistration(nodeLabels: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  return { name: '{{ local_hostname }}', kubeletExtraArgs: kubeletExtraArgs(nodeLabels) };
}

/** `patches` of init/join configurations when kubelet serving certificates are requested. */
export function kubeadmPatches(servingCerts: boolean): Record<string, unknown> {
  return servingCerts ? { patches: { directory: KUBEADM_PATCHES_DIR } } : {};
}

/** Whether kubelets request serving certificates from the cluster CA (needs the CSR approver add-on). */
export function wantsServingCerts(spec: ClusterSpec): boolean {
  return spec.addons.metricsServer.enabled;
}

/** Files sorted by path: a stable order, so the template hash only changes with the content. */
export function sortedFiles(files: readonly NodeFile[]): NodeFile[] {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`expected each node file path once, found ${f.path} twice`);
    seen.add(f.path);
  }
  return [...files].sort((a, b) => a.path.localeCompare(b.path));
}
