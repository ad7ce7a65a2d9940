/**
 * What the management-cloud e2e suite expects of environments/local.yaml's management stack, and
 * the checks of what `cdktf deploy` created, through the OpenStack APIs.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { CliResult, REPO, tail } from '../support/management-cloud';
import { OpenStackApi } from '../support/openstack-api';

/** The settings of environments/local.yaml the assertions compare against. */
export interface Expected {
  readonly externalNetworkName: string;
  readonly managementCidr: string;
  readonly allocationPoolStart: string;
  readonly allocationPoolEnd: string;
  readonly dnsNameservers: string[];
  readonly flavor: string;
  readonly image: string;
  readonly bootVolumeSizeGb: number;
  readonly apiAllowedCidrs: string[];
  readonly sshAllowedCidrs: string[];
}

export function readExpected(): Expected {
  const doc = parse(fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8'));
  const n = doc.network ?? {};
  const m = doc.management ?? {};
  if (!n.externalNetworkName || !n.managementCidr || !n.allocationPoolStart || !n.allocationPoolEnd || !m.flavor || !m.image) {
    throw new Error('environments/local.yaml: the suite needs network.externalNetworkName, managementCidr, allocationPoolStart/End and management.flavor/image set explicitly');
  }
  return {
    externalNetworkName: n.externalNetworkName,
    managementCidr: n.managementCidr,
    allocationPoolStart: n.allocationPoolStart,
    allocationPoolEnd: n.allocationPoolEnd,
    dnsNameservers: n.dnsNameservers ?? [],
    flavor: m.flavor,
    image: m.image,
    bootVolumeSizeGb: m.bootVolumeSizeGb ?? 30,
    apiAllowedCidrs: m.apiAllowedCidrs ?? [],
    sshAllowedCidrs: m.sshAllowedCidrs ?? [],
  };
}

/** A security group rule as compared: `direction ethertype protocol ports remote`. */
export function ruleText(r: { direction: string; ethertype: string; protocol: string | null; port_range_min: number | null; port_range_max: number | null; remote_ip_prefix: string | null; remote_group_id?: string | null }): string {
  const ports = r.port_range_min === null ? 'any' : `${r.port_range_min}-${r.port_range_max}`;
  const remote = r.remote_group_id ? `group:${r.remote_group_id}` : r.remote_ip_prefix ?? 'anywhere';
  return `${r.direction} ${r.ethertype} ${r.protocol ?? 'any'} ${ports} ${remote}`;
}

/** The management group's rules for the configured CIDRs, written out independently of lib/. */
export function expectedManagementRules(apiCidrs: readonly string[], sshCidrs: readonly string[]): string[] {
  return [
    'ingress IPv4 icmp any anywhere',
    ...apiCidrs.map((c) => `ingress IPv4 tcp 6443-6443 ${c}`),
    ...sshCidrs.map((c) => `ingress IPv4 tcp 22-22 ${c}`),
    'egress IPv4 any any anywhere',
    'egress IPv6 any any anywhere',
  ].sort();
}

export function expectedNodeAccessRules(managementCidr: string): string[] {
  return [`ingress IPv4 icmp any ${managementCidr}`, `ingress IPv4 tcp 22-22 ${managementCidr}`, 'egress IPv4 any any anywhere', 'egress IPv6 any any anywhere'].sort();
}

/** Exactly one object of that name, or a clear failure. */
export function single(items: any[], what: string, name: string): any {
  const matching = items.filter((i) => i.name === name);
  if (matching.length !== 1) throw new Error(`expected exactly one ${what} named ${name}, found ${matching.length}`);
  return matching[0];
}

export function expectSuccess(result: CliResult, what: string): void {
  if (result.code !== 0) throw new Error(`${what} failed: ${tail(result)}`);
}

/** Distinct Terraform error headlines (cdktf prints each diagnostic twice: raw and stack-prefixed). */
export function errorHeadlines(output: string): string[] {
  const headlines = new Set<string>();
  for (const line of output.split('\n')) {
    const m = /Error: (.+)$/.exec(line);
    if (m && !m[1].startsWith('External Error')) headlines.add(m[1].trim());
  }
  return [...headlines];
}

/** The text from the first Terraform error to the end, each diagnostic once. */
export function errorSection(output: string): string[] {
  const all = output.split('\n');
  const first = all.findIndex((l) => /Error: /.test(l));
  if (first < 0) return [];
  // cdktf repeats the diagnostics with a "local-management" prefix; keep the first copy.
  const repeat = all.findIndex((l, i) => i > first && /^local-management\s+│?\s*╷?/.test(l) && /╷/.test(l));
  return all.slice(first, repeat > first ? repeat : undefined).filter((l) => l.trim() !== '');
}

export function looksLikeStackTrace(output: string): boolean {
  return /goroutine \d+ \[|panic: |^\s+at .+\(.+:\d+:\d+\)$/m.test(output);
}

/** What the deploy checks look at. */
export interface DeployedStack {
  readonly api: OpenStackApi;
  /** Admin view: the user data Nova holds. */
  readonly admin: OpenStackApi;
  readonly expected: Expected;
  readonly outputs: Record<string, { value: string }>;
  readonly stateFile: string;
  /** `<prefix>-<environment>`, the stem of every resource name. */
  readonly name: string;
  readonly cloudAuthUrl: string;
}

/** Every resource of the stack, with the configured properties. */
export async function expectDeployedResources(d: DeployedStack): Promise<void> {
  const { subnet, external, mgmtGroup, image, flavor } = await expectNetworkAndGroups(d);
  const port = await expectVm(d, { subnet, external, mgmtGroup, image, flavor });
  await expectCredentialAndUserData(d, port);
}

/** Network, subnet, router, security groups; returns what the VM checks need. */
async function expectNetworkAndGroups(d: DeployedStack) {
  const { api, expected } = d;
  const NAME = d.name;
  // The external network, flavor and image the stack was told to use.
  const external = single((await api.network(`/networks?name=${encodeURIComponent(expected.externalNetworkName)}`)).networks, 'external network', expected.externalNetworkName);
  const flavor = single((await api.compute('/flavors/detail')).flavors, 'flavor', expected.flavor);
  const images = (await api.get('image', `/v2/images?name=${encodeURIComponent(expected.image)}`)).images as { id: string; created_at: string }[];
  const image = images.sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  expect(image).toBeDefined();

  // Network, subnet, router with its gateway on the external network and an interface on the subnet.
  const network = single((await api.network(`/networks?name=${NAME}-mgmt`)).networks, 'network', `${NAME}-mgmt`);
  const subnet = single((await api.network(`/subnets?network_id=${network.id}`)).subnets, 'subnet', `${NAME}-mgmt`);
  expect(subnet).toMatchObject({ cidr: expected.managementCidr, ip_version: 4, allocation_pools: [{ start: expected.allocationPoolStart, end: expected.allocationPoolEnd }] });
  expect([...subnet.dns_nameservers].sort()).toEqual([...expected.dnsNameservers].sort());
  const router = single((await api.network(`/routers?name=${NAME}-mgmt`)).routers, 'router', `${NAME}-mgmt`);
  expect(router.external_gateway_info?.network_id).toBe(external.id);
  const routerPorts = (await api.network(`/ports?device_id=${router.id}&device_owner=network:router_interface`)).ports;
  expect(routerPorts.map((p: any) => p.fixed_ips[0].subnet_id)).toEqual([subnet.id]);

  // Security groups: exactly the configured rules, nothing more (Neutron's defaults removed).
  const groups = (await api.network(`/security-groups?name=${NAME}-mgmt`)).security_groups;
  const mgmtGroup = single(groups, 'security group', `${NAME}-mgmt`);
  const nodeGroup = single((await api.network(`/security-groups?name=${NAME}-node-access`)).security_groups, 'security group', `${NAME}-node-access`);
  const rulesOf = async (id: string) => ((await api.network(`/security-group-rules?security_group_id=${id}`)).security_group_rules as any[]).map(ruleText).sort();
  expect(await rulesOf(mgmtGroup.id)).toEqual(expectedManagementRules(expected.apiAllowedCidrs, expected.sshAllowedCidrs));
  expect(await rulesOf(nodeGroup.id)).toEqual(expectedNodeAccessRules(expected.managementCidr));

  return { subnet, external, mgmtGroup, image, flavor };
}

/** The VM's port, floating IP and server with its boot volume; returns the port. */
async function expectVm(d: DeployedStack, ctx: { subnet: any; external: any; mgmtGroup: any; image: any; flavor: any }) {
  const { api, expected } = d;
  const { subnet, external, mgmtGroup, image, flavor } = ctx;
  const NAME = d.name;
  const floatingIp = d.outputs.floating_ip.value;
  const instanceId = d.outputs.instance_id.value;
  // The VM's port (management group only) and the floating IP bound to it.
  const port = single((await api.network(`/ports?name=${NAME}-mgmt`)).ports, 'port', `${NAME}-mgmt`);
  expect(port.security_groups).toEqual([mgmtGroup.id]);
  expect(port.fixed_ips).toHaveLength(1);
  expect(port.fixed_ips[0].subnet_id).toBe(subnet.id);
  expect(port.device_id).toBe(instanceId);
  const fips = (await api.network(`/floatingips?port_id=${port.id}`)).floatingips;
  expect(fips).toHaveLength(1);
  expect(fips[0]).toMatchObject({ floating_ip_address: floatingIp, floating_network_id: external.id, fixed_ip_address: port.fixed_ips[0].ip_address, port_id: port.id });

  // The instance: ACTIVE, flavor, booted from a volume of the configured size made from the image.
  const server = (await api.compute(`/servers/${instanceId}`, '2.3')).server;
  expect(server).toMatchObject({ name: `${NAME}-mgmt`, status: 'ACTIVE' });
  expect(server.flavor.id).toBe(flavor.id);
  const attached = server['os-extended-volumes:volumes_attached'] as { id: string; delete_on_termination: boolean }[];
  if (expected.bootVolumeSizeGb > 0) {
    expect(server.image).toBe('');
    expect(attached).toHaveLength(1);
    expect(attached[0].delete_on_termination).toBe(false); // a resource of its own, deleted by Terraform
    const volumeService = api.hasService('volumev3') ? 'volumev3' : 'block-storage';
    const volume = (await api.get(volumeService, `/volumes/${attached[0].id}`)).volume;
    expect(volume).toMatchObject({ name: `${NAME}-mgmt-boot`, size: expected.bootVolumeSizeGb, bootable: 'true', status: 'in-use' });
    expect(volume.volume_image_metadata?.image_id).toBe(image.id);
  } else {
    expect(server.image.id).toBe(image.id);
    expect(attached).toHaveLength(0);
  }

  return port;
}

/** No application credential for the VM, and the user data Nova holds is what Terraform rendered. */
async function expectCredentialAndUserData(d: DeployedStack, port: any): Promise<void> {
  const { api, admin, outputs } = d;
  const NAME = d.name;
  const floatingIp = outputs.floating_ip.value;
  const instanceId = outputs.instance_id.value;
  // Nothing on the VM talks to OpenStack: the stack hands it no credential.
  const credentials = (await api.identity(`/users/${api.userId}/application_credentials`)).application_credentials as { name: string }[];
  expect(credentials.filter((c) => c.name.startsWith(NAME))).toEqual([]);

  // The user data Nova holds (admin-only, compute API >= 2.3) is what Terraform rendered.
  const adminView = (await admin.compute(`/servers/${instanceId}`, '2.3')).server;
  const userData = Buffer.from(adminView['OS-EXT-SRV-ATTR:user_data'] ?? '', 'base64').toString('utf8');
  expect(userData.startsWith('#cloud-config\n')).toBe(true);
  const state = JSON.parse(fs.readFileSync(d.stateFile, 'utf8'));
  const instanceState = state.resources.find((r: any) => r.type === 'openstack_compute_instance_v2').instances[0].attributes;
  expect(instanceState.user_data).toBe(createHash('sha1').update(userData).digest('hex'));
  const cloudInit = parse(userData.replace(/^#cloud-config\n/, '')) as { write_files: { path: string; content: string; encoding?: string }[] };
  const file = (p: string) => {
    const f = cloudInit.write_files.find((w) => w.path === p);
    if (!f) throw new Error(`user data writes no ${p}`);
    return f.encoding === 'b64' ? Buffer.from(f.content, 'base64').toString('utf8') : f.content;
  };
  expect(cloudInit.write_files.filter((w) => w.path.startsWith('/etc/openstack/'))).toEqual([]);
  expect(file('/etc/capi-bootstrap/pki/ca.crt')).toBe(outputs.ca_certificate.value);
  const kindConfig = file('/etc/capi-bootstrap/kind-config.yaml');
  expect(kindConfig).toContain(`- '${floatingIp}'`);
  expect(kindConfig).toContain(`- '${port.fixed_ips[0].ip_address}'`);

}
