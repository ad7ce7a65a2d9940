/**
 * What an environment will consume in its OpenStack project, computed from the validated
 * environment alone (no cloud access): servers with vCPU/RAM where the flavor name encodes them,
 * volumes, floating IPs, load balancers, server groups, security groups, networks, routers and
 * application credentials. Counts follow what the stacks and CAPO create:
 * - management stack: network + subnet + router, security groups `<p>-mgmt` and `<p>-node-access`,
 *   one port with a floating IP, the VM and its boot volume (no application credential: nothing on the VM talks to OpenStack);
 * - per workload cluster: its application credential, the API floating IP (kept even when the API
 *   is internal-only: the management cluster reaches the API through it), server groups; CAPO
 *   adds the cluster network + subnet + router, the API load balancer and its two managed
 *   security groups (control plane, worker); OCCM adds the ingress-nginx load balancer.
 * Clusters with controlPlane.count 0 are not created and consume nothing.
 */
import { EnvironmentConfig, ResolvedCluster } from '../../../config/resolve';
import { flavorSize } from './flavor';

/** Root volume of a machine whose flavor has no disk and whose rootVolumeSizeGb is 0 (schema: "or 25 GB"). */
export const DISKLESS_ROOT_VOLUME_GB = 25;

export type ResourceKind =
  | 'server'
  | 'volume'
  | 'floating IP'
  | 'load balancer'
  | 'server group'
  | 'security group'
  | 'network'
  | 'router'
  | 'application credential';

export const RESOURCE_KINDS: readonly ResourceKind[] = [
  'server',
  'volume',
  'floating IP',
  'load balancer',
  'server group',
  'security group',
  'network',
  'router',
  'application credential',
];

export interface FootprintRow {
  /** `management` or the cluster name. */
  readonly scope: string;
  readonly resource: ResourceKind;
  readonly detail: string;
  readonly count: number;
  /** Servers: vCPUs of all `count` servers; null = flavor size unknown. */
  readonly vcpus?: number | null;
  /** Servers: RAM in GiB of all `count` servers; null = unknown. */
  readonly ramGiB?: number | null;
  /** Volumes: size in GB of all `count` volumes; null = unknown. */
  readonly volumeGb?: number | null;
}

export interface FootprintTotal {
  readonly resource: ResourceKind;
  readonly count: number;
  /** Sum over the rows with a known value. */
  readonly vcpus?: number;
  readonly ramGiB?: number;
  readonly volumeGb?: number;
  /** Some rows had an unknown size: the sums are lower bounds. */
  readonly incomplete: boolean;
}

export interface Footprint {
  readonly environment: string;
  readonly resourcePrefix: string;
  readonly cloud: string;
  readonly rows: readonly FootprintRow[];
  readonly totals: readonly FootprintTotal[];
  /** Clusters in the file that are not created (controlPlane.count 0). */
  readonly skippedClusters: readonly string[];
  /** Flavors whose size is not encoded in the name. */
  readonly unknownFlavors: readonly string[];
}

export function computeFootprint(env: EnvironmentConfig): Footprint {
  const rows: FootprintRow[] = [];
  const unknown = new Set<string>();
  const servers = serverRows(rows, unknown);
  // Management stack (nothing when an existing management cluster is used).
  if (!env.spec.existingManagementCluster) managementRows(env, rows, servers);
  for (const cluster of env.clusters) clusterRows(cluster, rows, servers);
  return {
    environment: env.name,
    resourcePrefix: env.resourcePrefix,
    cloud: env.cloud.name,
    rows,
    totals: totalsOf(rows),
    skippedClusters: Object.entries(env.spec.clusters)
      .filter(([, c]) => c.controlPlane.count === 0)
      .map(([name]) => name),
    unknownFlavors: [...unknown].sort(),
  };
}

type ServerRows = (scope: string, detail: string, flavor: string, count: number) => void;

/** Adds server rows with their vCPUs and RAM (from the SCS flavor name; unknown flavors are noted). */
function serverRows(rows: FootprintRow[], unknown: Set<string>): ServerRows {
  return (scope, detail, flavor, count) => {
    const size = flavorSize(flavor);
    if (!size) unknown.add(flavor);
    rows.push({
      scope,
      resource: 'server',
      detail: `${detail} ${flavor}`,
      count,
      vcpus: size ? size.vcpus * count : null,
      ramGiB: size ? round(size.ramGiB * count) : null,
    });
  };
}

function managementRows(env: EnvironmentConfig, rows: FootprintRow[], servers: ServerRows): void {
  const p = env.resourcePrefix;
  const m = env.spec.management;
  const mgmt = 'management';
  servers(mgmt, 'management VM', m.flavor, 1);
  if (m.bootVolumeSizeGb > 0) rows.push({ scope: mgmt, resource: 'volume', detail: 'boot volume of the VM', count: 1, volumeGb: m.bootVolumeSizeGb });
  rows.push({ scope: mgmt, resource: 'floating IP', detail: 'VM address (management API)', count: 1 });
  rows.push({ scope: mgmt, resource: 'security group', detail: `${p}-mgmt, ${p}-node-access`, count: 2 });
  rows.push({ scope: mgmt, resource: 'network', detail: `${p} network + subnet ${env.spec.network.managementCidr}`, count: 1 });
  rows.push({ scope: mgmt, resource: 'router', detail: 'to the external network', count: 1 });
}

function clusterRows(cluster: ResolvedCluster, rows: FootprintRow[], servers: ServerRows): void {
  const s = cluster.spec;
  const n = cluster.name;
  const cp = s.controlPlane;
  servers(n, 'control plane', cp.flavor, cp.count);
  const groups = [{ role: 'control plane', flavor: cp.flavor, count: cp.count, rootVolumeSizeGb: cp.rootVolumeSizeGb }, ...s.nodeGroups.map((g) => ({ role: `workers ${g.name}`, flavor: g.flavor, count: g.count, rootVolumeSizeGb: g.rootVolumeSizeGb }))];
  for (const g of s.nodeGroups) servers(n, `workers ${g.name}`, g.flavor, g.count);
  for (const g of groups) {
    if (g.count === 0) continue;
    if (g.rootVolumeSizeGb > 0) {
      rows.push({ scope: n, resource: 'volume', detail: `root volumes ${g.role}`, count: g.count, volumeGb: g.rootVolumeSizeGb * g.count });
      continue;
    }
    const size = flavorSize(g.flavor);
    if (size && size.diskGb === 0) {
      rows.push({ scope: n, resource: 'volume', detail: `root volumes ${g.role} (${g.flavor} has no disk)`, count: g.count, volumeGb: DISKLESS_ROOT_VOLUME_GB * g.count });
    }
  }
  const internal = s.apiAllowedCidrs.includes('none');
  rows.push({ scope: n, resource: 'floating IP', detail: internal ? 'API address (kept for the management cluster; API internal-only)' : 'API address', count: 1 });
  rows.push({ scope: n, resource: 'load balancer', detail: 'API (Octavia, CAPO)', count: 1 });
  if (s.addons.ingressNginx.enabled) {
    rows.push({ scope: n, resource: 'load balancer', detail: `ingress-nginx (${s.ovnLoadBalancer === true ? 'OVN provider' : s.ovnLoadBalancer === 'auto' ? 'OVN provider if available' : 'Octavia'}, OCCM)`, count: 1 });
  }
  const serverGroups = [
    ...(cp.antiAffinity !== 'none' ? [`control plane (${cp.antiAffinity})`] : []),
    ...s.nodeGroups.filter((g) => g.antiAffinity !== 'none').map((g) => `${g.name} (${g.antiAffinity})`),
  ];
  if (serverGroups.length > 0) rows.push({ scope: n, resource: 'server group', detail: serverGroups.join(', '), count: serverGroups.length });
  rows.push({ scope: n, resource: 'security group', detail: 'CAPO managed: control plane, worker', count: 2 });
  rows.push({ scope: n, resource: 'network', detail: `CAPO network + subnet ${s.network.nodeCidr}`, count: 1 });
  rows.push({ scope: n, resource: 'router', detail: 'CAPO router', count: 1 });
  rows.push({ scope: n, resource: 'application credential', detail: 'per-cluster credential', count: 1 });
}

function totalsOf(rows: readonly FootprintRow[]): FootprintTotal[] {
  return RESOURCE_KINDS.map((resource): FootprintTotal => {
    const of = rows.filter((r) => r.resource === resource);
    const sum = (f: 'vcpus' | 'ramGiB' | 'volumeGb') => round(of.reduce((a, r) => a + (r[f] ?? 0), 0));
    const incomplete = of.some((r) => r.vcpus === null || r.ramGiB === null || r.volumeGb === null);
    return {
      resource,
      count: of.reduce((a, r) => a + r.count, 0),
      ...(resource === 'server' ? { vcpus: sum('vcpus'), ramGiB: sum('ramGiB') } : {}),
      ...(resource === 'volume' ? { volumeGb: sum('volumeGb') } : {}),
      incomplete,
    };
  });

}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
