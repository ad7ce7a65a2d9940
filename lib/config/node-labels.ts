/**
 * Node labels as Kubernetes checks them, plus who may set them. Labels outside the CAPI-synced
 * domains reach the kubelet's `--node-labels` flag (comma-separated `key=value`), so a value that
 * is not a valid label could add labels of its own there; the syntax check below is what keeps
 * the flag to the labels written in the file.
 *
 * Who may set what (Kubernetes' NodeRestriction admission plugin, KEP-279 "Bounding Self-Labeling
 * Kubelets", and k8s.io/kubelet/pkg/apis KubeletLabels / KubeletLabelNamespaces): a kubelet may
 * not set labels under `kubernetes.io` or `k8s.io` (or their subdomains) except
 *   - the namespaces `kubelet.kubernetes.io` and `node.kubernetes.io` (and their subdomains),
 *   - the well-known keys it reports itself: kubernetes.io/hostname, kubernetes.io/os,
 *     kubernetes.io/arch, beta.kubernetes.io/os, beta.kubernetes.io/arch,
 *     beta.kubernetes.io/instance-type, node.kubernetes.io/instance-type,
 *     topology.kubernetes.io/zone, topology.kubernetes.io/region,
 *     failure-domain.beta.kubernetes.io/zone, failure-domain.beta.kubernetes.io/region;
 * and never `node-restriction.kubernetes.io` (kept for labels only administrators set).
 * The well-known keys are refused here all the same: the kubelet and the cloud controller
 * manager set them to the node's real host name, platform, flavor and zone.
 * Labels CAPI copies from the Machine onto the Node (see CAPI_SYNCED_LABEL_DOMAINS in lib/capi)
 * do not go through the kubelet: `node-role.kubernetes.io/<role>` and
 * `node-restriction.kubernetes.io/*` are allowed that way, except the control-plane roles, which
 * would put the control plane's workloads (and their cloud credentials) onto workers.
 */

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Well-known keys the kubelet or the cloud controller manager set themselves. */
const SET_BY_THE_NODE = [
  'kubernetes.io/hostname',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
];

const CONTROL_PLANE_ROLES = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

const within = (domain: string, parent: string) => domain === parent || domain.endsWith(`.${parent}`);

/** Why `key` is no label key Kubernetes accepts; undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const syntax =
    'expected a label key: an optional DNS subdomain prefix (lowercase, at most 253 characters) and "/", then a name of at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) return syntax;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return syntax;
  return reservedKeyProblem(key, prefix ?? '');
}

function reservedKeyProblem(key: string, domain: string): string | undefined {
  if (SET_BY_THE_NODE.includes(key)) return `expected a label the node does not set itself (the kubelet and the cloud controller manager set ${key})`;
  if (CONTROL_PLANE_ROLES.includes(key)) return 'expected a role other than the control plane\'s (it would schedule control-plane workloads and their credentials onto these workers)';
  if (within(domain, 'node-role.kubernetes.io') || within(domain, 'node-restriction.kubernetes.io')) return undefined; // set by CAPI on the Node
  if (within(domain, 'node.kubernetes.io') || within(domain, 'kubelet.kubernetes.io')) return undefined; // a kubelet may set these
  if (within(domain, 'kubernetes.io') || within(domain, 'k8s.io')) {
    return 'expected a label outside the kubernetes.io and k8s.io namespaces (reserved; a kubelet may set only node.kubernetes.io/ and kubelet.kubernetes.io/ labels, and node-role.kubernetes.io/<role> is set through Cluster API)';
  }
  return undefined;
}

/** Why `value` is no label value Kubernetes accepts; undefined when it is one. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '' || (value.length <= 63 && LABEL_NAME.test(value))) return undefined;
  return 'expected a label value: empty, or at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
}
