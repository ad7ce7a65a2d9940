/**
 * How node labels reach a Node: CAPI-synced domains through the Machine, all others through the
 * kubelet's `--node-labels` flag. Here so `validate` checks the flag's length the builders need.
 */

/** Label domains CAPI keeps in sync from Machine metadata onto the Node (no kubelet flag needed). */
export const CAPI_SYNCED_LABEL_DOMAINS: readonly string[] = ['node-role.kubernetes.io', 'node-restriction.kubernetes.io', 'node.cluster.x-k8s.io'];

/** kubeadm hands the flag to the kubelet; longer values are refused. */
export const MAX_NODE_LABELS_FLAG_LENGTH = 1024;

function labelDomain(key: string): string {
  return key.includes('/') ? key.split('/')[0] : '';
}

export function isCapiSynced(key: string): boolean {
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

/** The `--node-labels` value: `k=v` pairs sorted by key, joined by ",". */
export function nodeLabelsFlag(kubeletLabels: Readonly<Record<string, string>>): string {
  return Object.keys(kubeletLabels)
    .sort()
    .map((k) => `${k}=${kubeletLabels[k]}`)
    .join(',');
}
