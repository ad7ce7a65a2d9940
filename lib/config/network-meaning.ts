/**
 * What the addresses mean, beyond their syntax: the allocation pool against the gateway and the
 * defaults, the DNS servers Neutron accepts, a pod range big enough for the nodes, and ranges that
 * the VM or every host already uses (loopback, link-local, multicast; docker0 and kind on the VM).
 */
import { DEFAULT_POOL_START_HOST, Ipv4Cidr, cidrsOverlap, formatIpv4, lastAddress, parseCidr, parseIpv4 } from './cidr';
import type { PathIssue } from './cross-checks';
import { EnvironmentSpec } from './environment-schema';

/** Neutron's default `max_dns_nameservers`. */
export const MAX_DNS_NAMESERVERS = 5;

/** Ranges no subnet of ours may overlap: every host routes them elsewhere. */
const HOST_RESERVED: readonly [string, string][] = [
  ['0.0.0.0/8', '"this network"'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local, the metadata service'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];
/** Ranges the management VM uses itself: docker's bridge and the kind cluster inside it. */
const VM_RESERVED: readonly [string, string][] = [
  ['172.17.0.0/16', "docker0, docker's default bridge on the VM"],
  ['10.244.0.0/16', 'the pods of the kind management cluster'],
  ['10.96.0.0/16', 'the services of the kind management cluster'],
];

function reservedOverlap(range: Ipv4Cidr, reserved: readonly [string, string][]): string | undefined {
  const hit = reserved.find(([cidr]) => cidrsOverlap(range, parseCidr(cidr)!));
  return hit ? `${hit[0]} (${hit[1]})` : undefined;
}

export function checkNetworkMeaning(spec: EnvironmentSpec): PathIssue[] {
  return [...checkManagementSubnet(spec), ...checkDns(spec), ...Object.entries(spec.clusters).flatMap(([name, c]) => checkClusterRanges(name, c))];
}

function checkManagementSubnet(spec: EnvironmentSpec): PathIssue[] {
  const n = spec.network;
  const mgmt = parseCidr(n.managementCidr);
  if (!mgmt) return [];
  const issues: PathIssue[] = [];
  const reserved = reservedOverlap(mgmt, [...HOST_RESERVED, ...(spec.existingManagementCluster ? [] : VM_RESERVED)]);
  if (reserved) issues.push({ path: ['network', 'managementCidr'], message: `expected a range that does not overlap ${reserved}, found "${n.managementCidr}"` });
  if (n.allocationPoolStart === undefined && n.allocationPoolEnd === undefined) return issues;
  const gateway = (mgmt.network + 1) >>> 0;
  const start = n.allocationPoolStart === undefined ? (mgmt.network + DEFAULT_POOL_START_HOST) >>> 0 : parseIpv4(n.allocationPoolStart);
  const end = n.allocationPoolEnd === undefined ? (lastAddress(mgmt) - 1) >>> 0 : parseIpv4(n.allocationPoolEnd);
  if (start === undefined || end === undefined) return issues;
  if (start > end && (n.allocationPoolStart === undefined || n.allocationPoolEnd === undefined)) {
    const [field, given, other] = n.allocationPoolEnd === undefined ? ['allocationPoolStart', n.allocationPoolStart, `the default end ${formatIpv4(end)}`] : ['allocationPoolEnd', n.allocationPoolEnd, `the default start ${formatIpv4(start)}`];
    issues.push({ path: ['network', field], message: `expected a pool that is not empty: an address on the right side of ${other} (set both ends to move the pool), found "${given}"` });
  }
  if (start <= gateway && gateway <= end) {
    const field = n.allocationPoolStart !== undefined && start <= gateway ? 'allocationPoolStart' : 'allocationPoolEnd';
    issues.push({ path: ['network', field], message: `expected a pool that leaves out the gateway ${formatIpv4(gateway)} (the first address of ${n.managementCidr}, the router's), found "${n[field]}"` });
  }
  return issues;
}

function checkDns(spec: EnvironmentSpec): PathIssue[] {
  const servers = spec.network.dnsNameservers;
  const issues: PathIssue[] = [];
  if (servers.length > MAX_DNS_NAMESERVERS) {
    issues.push({ path: ['network', 'dnsNameservers'], message: `expected at most ${MAX_DNS_NAMESERVERS} DNS servers (Neutron's default max_dns_nameservers), found ${servers.length}` });
  }
  servers.forEach((s, i) => {
    if (servers.indexOf(s) < i) issues.push({ path: ['network', 'dnsNameservers', i], message: `expected each DNS server once, found "${s}" again` });
  });
  return issues;
}

function checkClusterRanges(name: string, c: EnvironmentSpec['clusters'][string]): PathIssue[] {
  const issues: PathIssue[] = [];
  for (const field of ['nodeCidr', 'podCidr', 'serviceCidr'] as const) {
    const range = parseCidr(c.network[field]);
    const reserved = range && reservedOverlap(range, HOST_RESERVED);
    if (reserved) issues.push({ path: ['clusters', name, 'network', field], message: `expected a range that does not overlap ${reserved}, found "${c.network[field]}"` });
  }
  const pods = parseCidr(c.network.podCidr);
  const nodes = c.controlPlane.count + c.nodeGroups.reduce((sum, g) => sum + g.count, 0);
  if (pods && pods.prefixLength <= 24 && nodes > 2 ** (24 - pods.prefixLength)) {
    issues.push({
      path: ['clusters', name, 'network', 'podCidr'],
      message: `expected a range with a /24 for each of the ${nodes} nodes (control plane and node groups), found "${c.network.podCidr}" with room for ${2 ** (24 - pods.prefixLength)}`,
    });
  }
  return issues;
}
