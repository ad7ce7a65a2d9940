/**
 * The OpenStack checks of the control-loop e2e suite: what CAPO made of the deployed cluster
 * (network, router, security groups, API load balancer, floating IP) and the machines' servers.
 */
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { OpenStackSession } from '../support/workload-openstack';

/** Network, subnet, router, managed security groups, API load balancer and floating IP of the cluster. */
export async function expectClusterOpenStack(c: {
  readonly openstack: OpenStackSession;
  /** The OpenStackCluster object. */
  readonly o: any;
  readonly outputs: Record<string, any>;
  readonly findings: string[];
  readonly apiAllowedCidrs: readonly string[];
  readonly managementEgressCidr: string;
}): Promise<void> {
  const { openstack, o, outputs, findings } = c;
  const API_ALLOWED_CIDRS = c.apiAllowedCidrs;
  const MANAGEMENT_EGRESS_CIDR = c.managementEgressCidr;
  const fipAddress = new URL(outputs.api_endpoint).hostname;

  // node network and subnet: CIDR and DNS of environments/local.yaml
  const subnets = (await openstack.get('network', `/v2.0/subnets?network_id=${o.status.network.id}`)).subnets;
  expect(subnets.map((s: any) => ({ cidr: s.cidr, dns: s.dns_nameservers }))).toEqual([{ cidr: '10.8.0.0/20', dns: ['192.0.2.53'] }]);
  // the router, with its gateway on the external network
  const router = (await openstack.get('network', `/v2.0/routers/${o.status.router.id}`)).router;
  const external = (await openstack.get('network', '/v2.0/networks?name=public')).networks[0];
  expect(router.external_gateway_info?.network_id).toBe(external.id);
  const routerPorts = (await openstack.get('network', `/v2.0/ports?device_id=${router.id}&network_id=${o.status.network.id}`)).ports;
  expect(routerPorts).toHaveLength(1);

  // managed security groups: CNI rules on both, in-cluster traffic allowed
  const groups = [o.status.controlPlaneSecurityGroup, o.status.workerSecurityGroup];
  for (const g of groups) {
    const sg = (await openstack.get('network', `/v2.0/security-groups/${g.id}`)).security_group;
    const rules = sg.security_group_rules.filter((r: any) => r.direction === 'ingress');
    const ports = (proto: string, port: number) => rules.filter((r: any) => r.protocol === proto && r.port_range_min === port && r.port_range_max === port).map((r: any) => r.remote_group_id).sort();
    const both = groups.map((x: any) => x.id).sort();
    expect({ group: sg.name, vxlan: ports('udp', 8472), health: ports('tcp', 4240), hubble: ports('tcp', 4244) }).toEqual({ group: sg.name, vxlan: both, health: both, hubble: both });
    // allowAllInClusterTraffic: any protocol from both managed groups
    const anyFrom = rules.filter((r: any) => r.protocol === null && r.port_range_min === null && r.remote_group_id).map((r: any) => r.remote_group_id).sort();
    expect({ group: sg.name, allTrafficFrom: [...new Set(anyFrom)] }).toEqual({ group: sg.name, allTrafficFrom: both });
  }

  // the API load balancer: ACTIVE, a listener on 6443, our floating IP on its VIP
  const lbId = o.status.apiServerLoadBalancer.id;
  const lb = (await openstack.get('load-balancer', `/v2/lbaas/loadbalancers/${lbId}`)).loadbalancer;
  expect({ provisioning: lb.provisioning_status, subnet: lb.vip_subnet_id }).toEqual({ provisioning: 'ACTIVE', subnet: subnets[0].id });
  const listeners = (await openstack.get('load-balancer', `/v2/lbaas/listeners?loadbalancer_id=${lbId}`)).listeners;
  expect(listeners.map((l: any) => [l.protocol, l.protocol_port])).toEqual([['TCP', 6443]]);
  const fip = (await openstack.floatingIps(`floating_ip_address=${fipAddress}`))[0];
  expect(fip.port_id).toBe(lb.vip_port_id);
  expect(o.status.apiServerLoadBalancer.ip).toBe(fipAddress);
  // the allowed CIDRs of the environment file reach the listener (CAPO adds the cluster's own addresses)
  const allowed: string[] = listeners[0].allowed_cidrs ?? [];
  expect(o.spec.apiServerLoadBalancer.allowedCIDRs).toEqual(expect.arrayContaining([...API_ALLOWED_CIDRS, MANAGEMENT_EGRESS_CIDR]));
  expect(allowed).toEqual(expect.arrayContaining(o.spec.apiServerLoadBalancer.allowedCIDRs));
  findings.push(`API listener allowed_cidrs: ${allowed.join(', ')} (spec: ${o.spec.apiServerLoadBalancer.allowedCIDRs.join(', ')})`);
}

/** Each machine is an ACTIVE server with the flavor, image or root volume, server group and security group asked for. */
export async function expectMachineServers(c: {
  readonly openstack: OpenStackSession;
  readonly machines: any[];
  readonly namespace: string;
  readonly cluster: string;
  readonly availabilityZone: string;
  readonly firstVersion: string;
  readonly workerRootVolumeGb: number;
}): Promise<void> {
  const { openstack, machines, namespace } = c;
  const CLUSTER = c.cluster;
  const AVAILABILITY_ZONE = c.availabilityZone;
  const FIRST_VERSION = c.firstVersion;
  const WORKER_ROOT_VOLUME_GB = c.workerRootVolumeGb;
  const flavors = new Map<string, string>((await openstack.get('compute', '/flavors/detail')).flavors.map((f: any) => [f.id, f.name]));
  const images = new Map<string, string>((await openstack.get('image', '/v2/images')).images.map((i: any) => [i.id, i.name]));
  const serverGroups = await openstack.serverGroups();
  for (const m of machines) {
    const role = m.metadata.labels['cluster.x-k8s.io/control-plane'] !== undefined ? 'control-plane' : 'md-0';
    const serverId = m.spec.providerID.replace('openstack:///', '');
    const server = (await openstack.get('compute', `/servers/${serverId}`)).server;
    const group = serverGroups.find((g) => g.name === `${namespace}-${role}`)!;
    const members = (await openstack.get('compute', `/os-server-groups/${group.id}`)).server_group.members;
    const sgs = server.security_groups.map((s: any) => s.name).sort();
    const volumes = server['os-extended-volumes:volumes_attached'] as { id: string }[];
    const rootGb = role === 'md-0' ? (await openstack.get('volumev3', `/volumes/${volumes[0].id}`)).volume.size : undefined;
    expect({
      machine: m.metadata.name,
      status: server.status,
      failureDomain: [m.spec.failureDomain, server['OS-EXT-AZ:availability_zone']],
      flavor: flavors.get(server.flavor.id),
      image: role === 'md-0' ? 'boots from volume' : images.get(server.image.id),
      inServerGroup: members.includes(serverId),
      securityGroups: sgs,
      rootGb,
    }).toEqual({
      machine: m.metadata.name,
      status: 'ACTIVE',
      failureDomain: [AVAILABILITY_ZONE, AVAILABILITY_ZONE],
      flavor: 'SCS-2V-4-20s',
      image: role === 'md-0' ? 'boots from volume' : `ubuntu-capi-image-${FIRST_VERSION}`,
      inServerGroup: true,
      securityGroups: [role === 'md-0' ? `k8s-cluster-${namespace}-${CLUSTER}-secgroup-worker` : `k8s-cluster-${namespace}-${CLUSTER}-secgroup-controlplane`],
      rootGb: role === 'md-0' ? WORKER_ROOT_VOLUME_GB : undefined,
    });
  }
}

/** Servers of the cluster's workers (md-0), by name, with their status and flavor name. */
export async function workerServers(openstack: OpenStackSession, cluster: string): Promise<Record<string, string>> {
  const flavors = new Map<string, string>((await openstack.get('compute', '/flavors/detail')).flavors.map((f: any) => [f.id, f.name]));
  const servers = (await openstack.get('compute', '/servers/detail')).servers.filter((s: any) => s.name.startsWith(`${cluster}-md-0-`));
  return Object.fromEntries(servers.map((s: any) => [s.name, `${s.status} ${flavors.get(s.flavor.id)}`]));
}

/** Waits for `count` md-0 Machines Running and as many ACTIVE servers of `flavor`, and no other; returns the servers. */
export function runningWorkerServers(o: { openstack: OpenStackSession; client: KubeClient; namespace: string; cluster: string }, count: number, flavor: string): Promise<Record<string, string>> {
  return waitFor(`${count} running workers of flavor ${flavor}, and no other`, 10 * 60_000, async () => {
    const all = ok(await o.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${o.namespace}/machines`), 'listing machines', [200]).items as any[];
    const ms = all.filter((m) => m.metadata.labels['cluster.x-k8s.io/deployment-name'] === `${o.cluster}-md-0`);
    const servers = await workerServers(o.openstack, o.cluster);
    const done = ms.length === count && ms.every((m) => m.status?.phase === 'Running') && Object.values(servers).length === count && Object.values(servers).every((s) => s === `ACTIVE ${flavor}`);
    return done ? servers : undefined;
  }, 2_000);
}
