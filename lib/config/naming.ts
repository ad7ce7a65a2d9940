/**
 * Every name the project derives from an environment, in one place. Config resolution computes
 * them once (see resolve.ts); builders, constructs and stacks read the resolved fields, and the
 * runtime (leftovers cleanup, CLI) uses the same functions to find what synthesis named.
 */

/** A Kubernetes DNS label: namespaces, and the cluster names CAPO and OCCM put into OpenStack names. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MAX_LENGTH = 63;

/** `<prefix>-<environment>`: the stem of every OpenStack resource name of an environment. */
export function environmentResourcePrefix(prefix: string, environment: string): string {
  return `${prefix}-${environment}`;
}

/**
 * `<prefix>-<environment>-<cluster>`: unique per OpenStack project, so it is the cluster's
 * namespace on the management cluster and the cluster name OCCM and Cinder CSI write on what they
 * create. CAPO's own names join this namespace and the cluster name again, which files loaded
 * together can make collide (capo-names.ts refuses that).
 */
export function clusterResourceName(resourcePrefix: string, cluster: string): string {
  return `${resourcePrefix}-${cluster}`;
}

/** The stack of an environment's OpenStack side and management VM. */
export function managementStackName(environment: string): string {
  return `${environment}-management`;
}

/** The stack of one workload cluster. */
export function workloadStackName(environment: string, cluster: string): string {
  return `${environment}-${cluster}`;
}

/** Field manager of the server-side applies of one workload stack. */
export function fieldManagerName(environment: string, cluster: string): string {
  return `capi-openstack-cdktf-${environment}-${cluster}`;
}

/**
 * Name of the network CAPO creates for a cluster with managed subnets:
 * `k8s-clusterapi-cluster-<namespace>-<cluster>`. While a server of the project still has a port
 * on it, the cluster's machines (and with them OCCM and Cinder CSI) may still run.
 */
export function capoNetworkName(namespace: string, clusterName: string): string {
  return `k8s-clusterapi-cluster-${namespace}-${clusterName}`;
}
