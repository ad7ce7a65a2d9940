/**
 * The names CAPO itself gives what it creates for a cluster, and the clusters of files loaded
 * together that would get the same ones.
 *
 * CAPO (v0.14, the line versions.ts pins) bases every name on `<namespace>-<cluster>`: network,
 * subnet and router `k8s-clusterapi-cluster-<namespace>-<cluster>`, the API load balancer the same
 * with `-kubeapi`, the security groups `k8s-cluster-<namespace>-<cluster>-secgroup-<role>`. Our
 * namespace already ends in the cluster name (`<prefix>-<environment>-<cluster>`), so `a-x-x.yaml`
 * with cluster `x` and `a.yaml` with cluster `x-x` both get network
 * `k8s-clusterapi-cluster-capi-a-x-x-x-x`. CAPO looks these up by name and reuses what it finds, so
 * in one project the second cluster would run on the first one's network and delete it with its
 * own; the leftovers cleanup would wait on the wrong network too. The product's own names are
 * checked in owned-names.ts; these are CAPO's.
 */
import { capoNetworkName, clusterResourceName, environmentResourcePrefix } from './naming';

export type CapoResourceKind = 'network' | 'subnet' | 'router' | 'load balancer' | 'security group';

export interface CapoResourceName {
  readonly kind: CapoResourceKind;
  readonly name: string;
}

/** Every name CAPO gives a cluster's resources with this project's settings (managed subnet, API load balancer, managed security groups, no bastion). */
export function capoResourceNames(namespace: string, clusterName: string): CapoResourceName[] {
  const network = capoNetworkName(namespace, clusterName);
  const securityGroup = (role: string) => `k8s-cluster-${namespace}-${clusterName}-secgroup-${role}`;
  return [
    { kind: 'network', name: network },
    { kind: 'subnet', name: network },
    { kind: 'router', name: network },
    { kind: 'load balancer', name: `${network}-kubeapi` },
    { kind: 'security group', name: securityGroup('controlplane') },
    { kind: 'security group', name: securityGroup('worker') },
  ];
}

/** What the check needs of an environment: its file, name, prefix and the clusters that get a stack. */
export interface CapoNamedEnvironment {
  readonly file: string;
  readonly name: string;
  readonly prefix: string;
  readonly clusters: readonly { readonly name: string }[];
}

interface ClusterOrigin {
  readonly env: CapoNamedEnvironment;
  readonly cluster: string;
  readonly namespace: string;
}

/**
 * One line per pair of files whose clusters CAPO would give the same names, naming both files, both
 * environments and clusters, and the shared network name. Pairs in `reported` (already named by
 * another check) are left out; new pairs are added to it.
 */
export function capoNameProblems(envs: readonly CapoNamedEnvironment[], reported = new Set<string>()): string[] {
  const problems: string[] = [];
  const seen = new Map<string, ClusterOrigin>();
  for (const env of envs) {
    for (const { name: cluster } of env.clusters) {
      const namespace = clusterResourceName(environmentResourcePrefix(env.prefix, env.name), cluster);
      // every CAPO name is a function of this one string: equal here means equal everywhere
      const network = capoNetworkName(namespace, cluster);
      const other = seen.get(network);
      if (!other) {
        seen.set(network, { env, cluster, namespace });
        continue;
      }
      const pair = `${other.env.file}\n${env.file}`;
      if (other.env.file === env.file || reported.has(pair)) continue;
      reported.add(pair);
      problems.push(
        `${other.env.file} and ${env.file}: expected clusters whose resources CAPO names apart, found cluster "${other.cluster}" of environment "${other.env.name}" and cluster "${cluster}" of environment "${env.name}" ` +
          `both get CAPO's network "${network}" (CAPO names a cluster's network, subnet, router, security groups and API load balancer after "<namespace>-<cluster>": ` +
          `"${other.namespace}" + "${other.cluster}" and "${namespace}" + "${cluster}" join to the same name, and in one project CAPO reuses what has that name, ` +
          'so one cluster would run on the other\'s network and delete it with its own): rename one of the clusters',
      );
    }
  }
  return problems;
}
