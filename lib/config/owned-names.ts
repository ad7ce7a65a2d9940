/**
 * The exact OpenStack names an environment's stacks give what they create, and whether another
 * environment could produce the same name. Destructive runtime commands (orphans, leftovers
 * cleanup) touch only these exact names, never "everything starting with `<prefix>-<env>-`".
 *
 * The rule: names join prefix, environment and cluster with `-`, which those may contain too, so
 * `a` + `b-c` and `a-b` + `c` both give `a-b-c`. Renaming would replace running resources, so the
 * names stay; instead (1) one file may not produce the same name twice, (2) files loaded together
 * (synthesis, validate) may not produce each other's names, (3) a name is *ambiguous* when another
 * valid prefix / environment / cluster split yields it (an environment elsewhere could own it), and
 * an ambiguous name is deleted only with proof beyond the name (a link to the stack's state).
 * The construct tests check these functions against the synthesized names.
 */
import { capoNameProblems } from './capo-names';
import { ENVIRONMENT_NAME } from './environment-name';
import { DNS_LABEL, clusterResourceName, environmentResourcePrefix } from './naming';

/** Maximum lengths of the schema (environment-schema.ts, environment-name.ts). */
const PREFIX_MAX = 20;
const CLUSTER_MAX = 32;

/** Node group names a workload cluster reserves: its control-plane server group is `<cluster>-control-plane`. */
export const RESERVED_NODE_GROUP_NAMES: readonly string[] = ['control-plane'];

/** The management stack's resources (network, subnet, router, port, security group, server, key pair). */
export const managementResourceName = (resourcePrefix: string): string => `${resourcePrefix}-mgmt`;
export const managementBootVolumeName = (resourcePrefix: string): string => `${managementResourceName(resourcePrefix)}-boot`;
export const nodeAccessSecurityGroupName = (resourcePrefix: string): string => `${resourcePrefix}-node-access`;
export const managementFloatingIpDescription = (resourcePrefix: string): string => `${managementResourceName(resourcePrefix)} API`;
/** The workload stack's API floating IP: one per cluster name in a project, so it also marks the name as taken. */
export const apiFloatingIpDescription = (clusterResourceName: string): string => `${clusterResourceName} Kubernetes API`;
export const controlPlaneServerGroupName = (clusterResourceName: string): string => `${clusterResourceName}-control-plane`;
export const nodeGroupServerGroupName = (clusterResourceName: string, nodeGroup: string): string => `${clusterResourceName}-${nodeGroup}`;

/** What an environment is named by: enough of its config to compute its names. */
export interface NamedEnvironment {
  readonly name: string;
  readonly prefix: string;
  /** False when it uses an existing management cluster (no management stack). */
  readonly hasManagementStack: boolean;
  readonly clusters: readonly { readonly name: string; readonly nodeGroups: readonly string[] }[];
}

export type OwnedKind = 'network' | 'subnet' | 'router' | 'port' | 'security group' | 'server' | 'key pair' | 'volume' | 'floating IP' | 'server group' | 'application credential';

/** One exact name (floating IPs: description) the environment's stacks create, and which stack does. */
export interface OwnedName {
  readonly kind: OwnedKind;
  readonly name: string;
  /** `management`, or the cluster's name (its stack creates it). */
  readonly owner: string;
  /** For a node group's server group: the node group. */
  readonly nodeGroup?: string;
}

/** Every exact name the environment's stacks create. */
export function ownedNames(env: NamedEnvironment): OwnedName[] {
  const stem = environmentResourcePrefix(env.prefix, env.name);
  const names: OwnedName[] = [];
  if (env.hasManagementStack) {
    const mgmt = managementResourceName(stem);
    for (const kind of ['network', 'subnet', 'router', 'port', 'security group', 'server', 'key pair'] as const) names.push({ kind, name: mgmt, owner: 'management' });
    names.push({ kind: 'security group', name: nodeAccessSecurityGroupName(stem), owner: 'management' });
    names.push({ kind: 'volume', name: managementBootVolumeName(stem), owner: 'management' });
    names.push({ kind: 'floating IP', name: managementFloatingIpDescription(stem), owner: 'management' });
  }
  for (const c of env.clusters) {
    const r = clusterResourceName(stem, c.name);
    names.push({ kind: 'floating IP', name: apiFloatingIpDescription(r), owner: c.name });
    names.push({ kind: 'application credential', name: r, owner: c.name });
    names.push({ kind: 'server group', name: controlPlaneServerGroupName(r), owner: c.name });
    for (const g of c.nodeGroups) names.push({ kind: 'server group', name: nodeGroupServerGroupName(r, g), owner: c.name, nodeGroup: g });
  }
  return names;
}

/** The names a management cluster of the environment creates (what `ManagementCluster` owns). */
export function managementOwnedNames(env: NamedEnvironment): OwnedName[] {
  return ownedNames({ ...env, hasManagementStack: true, clusters: [] });
}

/** The names the environment's workload cluster `cluster` creates (what its `WorkloadCluster` owns). */
export function clusterOwnedNames(env: NamedEnvironment, cluster: string): OwnedName[] {
  return ownedNames({ ...env, hasManagementStack: false, clusters: env.clusters.filter((c) => c.name === cluster) });
}

/** The names of `b` that `a` has too (same kind, same name). */
export function sharedNames<T extends { readonly kind: string; readonly name: string }>(a: readonly T[], b: readonly T[]): T[] {
  const inA = new Set(a.map((o) => `${o.kind}\n${o.name}`));
  return b.filter((o) => inA.has(`${o.kind}\n${o.name}`));
}

const isPrefix = (s: string) => s.length <= PREFIX_MAX && DNS_LABEL.test(s);
const isEnvironment = (s: string) => ENVIRONMENT_NAME.test(s);
const isCluster = (s: string) => s.length <= CLUSTER_MAX && DNS_LABEL.test(s);

/** Every `[head, tail]` of `text` cut at one of its dashes. */
function cuts(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (let i = text.indexOf('-'); i > 0; i = text.indexOf('-', i + 1)) out.push([text.slice(0, i), text.slice(i + 1)]);
  return out;
}

/** Other valid `[prefix, environment]` pairs whose `<prefix>-<environment>` equals this one's. */
export function otherEnvironmentSplits(prefix: string, environment: string): [string, string][] {
  return cuts(environmentResourcePrefix(prefix, environment)).filter(([p, e]) => p !== prefix && isPrefix(p) && isEnvironment(e));
}

/** Other valid `[prefix, environment, cluster]` triples whose cluster resource name equals this one's. */
export function otherClusterSplits(prefix: string, environment: string, cluster: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const [p, rest] of cuts(clusterResourceName(environmentResourcePrefix(prefix, environment), cluster))) {
    if (!isPrefix(p)) continue;
    for (const [e, c] of cuts(rest)) if ((p !== prefix || e !== environment) && isEnvironment(e) && isCluster(c)) out.push([p, e, c]);
  }
  return out;
}

/**
 * Why another environment could own `owned` too (undefined: only this split yields it). Management
 * names are ambiguous with another prefix/environment split; cluster names also with another
 * environment/cluster split (a cluster `eu-demo` of `prod` is `prod-eu`'s cluster `demo`).
 */
export function ambiguity(env: NamedEnvironment, owned: OwnedName): string | undefined {
  if (owned.owner === 'management') {
    const [p, e] = otherEnvironmentSplits(env.prefix, env.name)[0] ?? [];
    return p === undefined ? undefined : `prefix "${p}" with environment "${e}" gives the same name`;
  }
  const [p, e, c] = otherClusterSplits(env.prefix, env.name, owned.owner)[0] ?? [];
  return p === undefined ? undefined : `prefix "${p}", environment "${e}", cluster "${c}" gives the same name`;
}

/** The naming-relevant part of a resolved environment (clusters without a control plane have no stack). */
export function namedEnvironment(env: {
  readonly name: string;
  readonly spec: { readonly prefix: string; readonly existingManagementCluster?: unknown; readonly clusters: Readonly<Record<string, { readonly nodeGroups: readonly { readonly name: string }[] }>> };
  readonly clusters: readonly { readonly name: string }[];
}): NamedEnvironment {
  return {
    name: env.name,
    prefix: env.spec.prefix,
    hasManagementStack: !env.spec.existingManagementCluster,
    clusters: env.clusters.map((c) => ({ name: c.name, nodeGroups: env.spec.clusters[c.name].nodeGroups.map((g) => g.name) })),
  };
}

/**
 * Pairs of environments loaded together whose stacks would give resources of one kind the same
 * name (`a` + `b-c` and `a-b` + `c`; `prod` with cluster `eu-web` and `prod-eu` with cluster `web`),
 * or whose clusters CAPO would give the same names (capo-names.ts), one line each naming both
 * files and a shared name.
 */
export function sharedNameProblems(envs: readonly (NamedEnvironment & { readonly file: string })[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, NamedEnvironment & { readonly file: string }>();
  const reported = new Set<string>();
  for (const env of envs) {
    for (const o of ownedNames(env)) {
      const key = `${o.kind} ${o.name}`;
      const other = seen.get(key);
      if (other && other.file !== env.file && !reported.has(`${other.file}\n${env.file}`)) {
        reported.add(`${other.file}\n${env.file}`);
        problems.push(
          `${other.file} and ${env.file}: expected environments whose resources have names of their own, found both name a ${o.kind} "${o.name}" ` +
            `(prefix "${other.prefix}" + environment "${other.name}" and prefix "${env.prefix}" + environment "${env.name}" join to the same names; ` +
            'destroying one would let its cleanup take the other\'s load balancers and volumes): give one of them another prefix or cluster name',
        );
      }
      if (!other) seen.set(key, env);
    }
  }
  return [...problems, ...capoNameProblems(envs, reported)];
}
