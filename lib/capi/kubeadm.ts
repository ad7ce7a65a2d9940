/**
 * Kubeadm bootstrap configuration shared by the control plane (KubeadmControlPlane) and the node
 * groups (KubeadmConfigTemplate): kubelet flags, node registration, node files.
 */
import { ClusterSpec } from '../config';
import { jinjaLiteral } from '../config/jinja-text';
import { MAX_NODE_LABELS_FLAG_LENGTH, nodeLabelsFlag } from '../config/kubelet-labels';
import { labelKeyProblem, labelValueProblem } from '../config/node-labels';
import { KUBEADM_PATCHES_DIR, NodeFile } from './node-files';

/** A `{name, value}` argument (CAPI v1beta2 Arg). */
export interface Arg {
  readonly name: string;
  readonly value: string;
}

// the split lives in config, where validate checks the flag's length
export { CAPI_SYNCED_LABEL_DOMAINS, splitNodeLabels } from '../config/kubelet-labels';

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
  const labels = nodeLabelsFlag(nodeLabels);
  if (labels) {
    if (labels.length > MAX_NODE_LABELS_FLAG_LENGTH) throw new Error(`expected the node labels to fit in ${MAX_NODE_LABELS_FLAG_LENGTH} characters as a kubelet flag, found ${labels.length}`);
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

/**
 * Commands as they go into a kubeadm config spec: once each, in order, escaped for the Jinja template
 * CAPI makes of the node's user data (see jinja-text.ts).
 */
export function nodeCommands(commands: readonly string[]): string[] {
  return [...new Set(commands)].map(jinjaLiteral);
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
