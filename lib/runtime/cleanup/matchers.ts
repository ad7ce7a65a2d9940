/**
 * Which OpenStack resources a workload cluster's controllers created, decided from what the
 * controllers write on them (pure functions; the facts are from the OCCM and Cinder CSI sources):
 *
 * - OCCM (`--cluster-name=<name>`) names a Service's Octavia load balancer
 *   `kube_service_<name>_<namespace>_<service>` (cut at 255 characters), describes it
 *   `Kubernetes external service <namespace>/<service> from cluster <name>`, tags it with its name
 *   where Octavia supports tags, and adds further `kube_service_<cluster>_<ns>_<svc>` tags when
 *   other Services share the load balancer.
 * - OCCM describes a floating IP it allocated itself
 *   `Floating IP for Kubernetes external service <namespace>/<service> from cluster <name>`; a
 *   floating IP the user pre-allocated (`loadBalancerIP`) keeps its own description.
 * - With `manage-security-groups`, OCCM creates security groups described
 *   `Security Group for <namespace>/<service> Service LoadBalancer in cluster <name>`.
 * - Cinder CSI (`--cluster=<name>`) sets the metadata `cinder.csi.openstack.org/cluster=<name>` on
 *   every volume and snapshot it creates.
 *
 * Kubernetes namespace and Service names are DNS labels (no `_`, no `/`, no spaces), which makes
 * these formats unambiguous: a resource of cluster `a` never matches cluster `a_b` or `a-b`.
 */

export const OCCM_LB_PREFIX = 'kube_service_';
export const CSI_CLUSTER_METADATA_KEY = 'cinder.csi.openstack.org/cluster';
const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const NS_SVC = new RegExp(`^${LABEL}_${LABEL}$`);
const SERVICE_REF = `${LABEL}/${LABEL}`;

export interface Verdict {
  /** The resource is provably the cluster's. */
  readonly match: boolean;
  /**
   * Why a resource that looks like the cluster's is left alone (undefined for the many resources
   * that are simply someone else's).
   */
  readonly keptBecause?: string;
}

const NO: Verdict = { match: false };

export interface LoadBalancerLike {
  readonly name?: string | null;
  readonly description?: string | null;
  readonly tags?: readonly string[] | null;
}

/** An Octavia load balancer OCCM created for a Service of cluster `clusterName`. */
export function occmLoadBalancerVerdict(lb: LoadBalancerLike, clusterName: string): Verdict {
  const name = lb.name ?? '';
  const prefix = `${OCCM_LB_PREFIX}${clusterName}_`;
  if (!name.startsWith(prefix)) return NO;
  // `<namespace>_<service>`, both DNS labels: cluster `<name>_x` leaves a second `_`. OCCM cuts
  // names at 255 characters, which needs a cluster name over 114 characters (namespace and Service
  // names stop at 63): a cut name is not accepted, it could belong to such a `<name>_…` cluster.
  if (!NS_SVC.test(name.slice(prefix.length))) return NO;
  const described = /^Kubernetes external service \S+ from cluster (.+)$/.exec(lb.description ?? '');
  if (described && described[1] !== clusterName) {
    return { match: false, keptBecause: `its description names cluster "${described[1]}"` };
  }
  const foreign = (lb.tags ?? []).filter((t) => t.startsWith(OCCM_LB_PREFIX) && !t.startsWith(prefix));
  if (foreign.length > 0) {
    return { match: false, keptBecause: `Services of another cluster share it (tags ${foreign.join(', ')})` };
  }
  return { match: true };
}

/** A floating IP OCCM allocated for a Service of cluster `clusterName`. */
export function occmFloatingIpVerdict(fip: { readonly description?: string | null }, clusterName: string): Verdict {
  const m = new RegExp(`^Floating IP for Kubernetes external service ${SERVICE_REF} from cluster (.+)$`).exec(fip.description ?? '');
  return m && m[m.length - 1] === clusterName ? { match: true } : NO;
}

/** A security group OCCM created for a Service of cluster `clusterName` (`manage-security-groups`). */
export function occmSecurityGroupVerdict(sg: { readonly description?: string | null }, clusterName: string): Verdict {
  const m = new RegExp(`^Security Group for ${SERVICE_REF} Service LoadBalancer in cluster (.+)$`).exec(sg.description ?? '');
  return m && m[m.length - 1] === clusterName ? { match: true } : NO;
}

/** A Cinder volume or snapshot Cinder CSI created for cluster `clusterName`. */
export function csiVerdict(item: { readonly metadata?: Readonly<Record<string, unknown>> | null }, clusterName: string): Verdict {
  return item.metadata?.[CSI_CLUSTER_METADATA_KEY] === clusterName ? { match: true } : NO;
}
