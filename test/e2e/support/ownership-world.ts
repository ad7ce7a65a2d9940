/**
 * Helpers of the orphans-ownership e2e: two environments of one prefix in one project of the local
 * cloud, their stacks' resources created with the exact names the stacks give them
 * (lib/config/owned-names.ts, independent of it here), the states that record them written as
 * Terraform writes local state, and stack directories whose local backend points at those states
 * (what `cdktf synth` writes, reduced to the backend: all `orphans` needs to `terraform state pull`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseDocument } from 'yaml';
import { LocalCloud } from './cleanup-cloud';
import { REPO } from './management-cloud';

export interface Made {
  readonly kind: 'network' | 'subnet' | 'router' | 'router interface' | 'port' | 'security group' | 'floating IP' | 'volume' | 'load balancer';
  readonly id: string;
  readonly name: string;
}

/** Where a resource of each kind is shown (404 or DELETED once it is gone). */
const SHOW: Readonly<Record<Made['kind'], [type: string, path: (id: string) => string]>> = {
  network: ['network', (id) => `/v2.0/networks/${id}`],
  subnet: ['network', (id) => `/v2.0/subnets/${id}`],
  router: ['network', (id) => `/v2.0/routers/${id}`],
  'router interface': ['network', (id) => `/v2.0/ports/${id}`],
  port: ['network', (id) => `/v2.0/ports/${id}`],
  'security group': ['network', (id) => `/v2.0/security-groups/${id}`],
  'floating IP': ['network', (id) => `/v2.0/floatingips/${id}`],
  volume: ['volume', (id) => `/volumes/${id}`],
  'load balancer': ['load-balancer', (id) => `/v2/lbaas/loadbalancers/${id}`],
};

/** The ids of `made` that still exist, by listing each. */
export async function surviving(cloud: LocalCloud, made: readonly Made[]): Promise<string[]> {
  const alive: string[] = [];
  for (const m of made) {
    const [type, show] = SHOW[m.kind];
    const r = await cloud.call('GET', type, show(m.id), undefined, [200, 404]);
    const status = r.body?.loadbalancer?.provisioning_status ?? r.body?.volume?.status;
    if (r.status === 200 && status !== 'DELETED' && status !== 'deleting') alive.push(m.id);
  }
  return alive;
}

export const ids = (made: readonly Made[]): string[] => made.map((m) => m.id);

/** What a management stack creates (no server: the fake hypervisor is slow and a server adds nothing here). */
export async function managementResources(cloud: LocalCloud, stem: string, cidr: string): Promise<Made[]> {
  const name = `${stem}-mgmt`;
  const net = (await cloud.call('POST', 'network', '/v2.0/networks', { network: { name } })).body.network;
  const subnet = (await cloud.call('POST', 'network', '/v2.0/subnets', { subnet: { network_id: net.id, name, cidr, ip_version: 4 } })).body.subnet;
  const router = (await cloud.call('POST', 'network', '/v2.0/routers', { router: { name } })).body.router;
  const iface = (await cloud.call('PUT', 'network', `/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id })).body;
  const port = (await cloud.call('POST', 'network', '/v2.0/ports', { port: { network_id: net.id, name } })).body.port;
  const made: Made[] = [
    { kind: 'network', id: net.id, name },
    { kind: 'subnet', id: subnet.id, name },
    { kind: 'router', id: router.id, name },
    { kind: 'router interface', id: iface.port_id, name },
    { kind: 'port', id: port.id, name },
  ];
  for (const sg of [name, `${stem}-node-access`]) made.push({ kind: 'security group', id: await securityGroup(cloud, sg), name: sg });
  made.push({ kind: 'floating IP', id: await floatingIp(cloud, `${name} API`), name: `${name} API` });
  made.push({ kind: 'volume', id: await cloud.createVolume(`${name}-boot`, {}), name: `${name}-boot` });
  return made;
}

export async function securityGroup(cloud: LocalCloud, name: string): Promise<string> {
  return (await cloud.call('POST', 'network', '/v2.0/security-groups', { security_group: { name, description: 'orphans-ownership e2e' } })).body.security_group.id;
}

export async function floatingIp(cloud: LocalCloud, description: string): Promise<string> {
  const external = (await cloud.call('GET', 'network', '/v2.0/networks?name=public')).body.networks[0];
  return (await cloud.call('POST', 'network', '/v2.0/floatingips', { floatingip: { floating_network_id: external.id, description } })).body.floatingip.id;
}

/** Deletes what a stack destroy deletes, in an order the APIs accept. */
export async function destroy(cloud: LocalCloud, made: readonly Made[]): Promise<void> {
  const order: Made['kind'][] = ['floating IP', 'router interface', 'port', 'volume', 'subnet', 'network', 'router', 'security group'];
  for (const kind of order) {
    for (const m of made.filter((x) => x.kind === kind)) {
      const router = made.find((x) => x.kind === 'router');
      if (kind === 'router interface') await cloud.call('PUT', 'network', `/v2.0/routers/${router!.id}/remove_router_interface`, { port_id: m.id }, [200, 404]);
      else if (kind === 'volume') await cloud.call('DELETE', 'volume', `/volumes/${m.id}`, undefined, [202, 404]);
      else await cloud.call('DELETE', 'network', SHOW[kind][1](m.id), undefined, [204, 404]);
    }
  }
}

const TYPE: Readonly<Record<Made['kind'], string>> = {
  network: 'openstack_networking_network_v2',
  subnet: 'openstack_networking_subnet_v2',
  router: 'openstack_networking_router_v2',
  'router interface': 'openstack_networking_router_interface_v2',
  port: 'openstack_networking_port_v2',
  'security group': 'openstack_networking_secgroup_v2',
  'floating IP': 'openstack_networking_floatingip_v2',
  volume: 'openstack_blockstorage_volume_v3',
  'load balancer': 'openstack_lb_loadbalancer_v2',
};

/**
 * The stack directory `<app>/cdktf.out/stacks/<stack>` with the local backend the app synthesizes,
 * and its state recording `made` (Terraform's local state format, version 4).
 */
export function writeStack(appDir: string, stack: string, made: readonly Made[]): void {
  const stackDir = path.join(appDir, 'cdktf.out', 'stacks', stack);
  const stateFile = path.join(appDir, `terraform.${stack}.tfstate`);
  fs.mkdirSync(stackDir, { recursive: true });
  fs.writeFileSync(path.join(stackDir, 'cdk.tf.json'), JSON.stringify({ terraform: { backend: { local: { path: stateFile } } } }, null, 2));
  const previous = fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : undefined;
  const resources = made.map((m, i) => ({
    mode: 'managed',
    type: TYPE[m.kind],
    name: `r${i}`,
    provider: 'provider["registry.terraform.io/terraform-provider-openstack/openstack"]',
    instances: [{ schema_version: 0, attributes: m.kind === 'router interface' ? { id: m.id, port_id: m.id } : { id: m.id, name: m.name }, sensitive_attributes: [] }],
  }));
  const state = { version: 4, terraform_version: '1.5.7', serial: (previous?.serial ?? 0) + 1, lineage: previous?.lineage ?? `e2e-${stack}`, outputs: {}, resources, check_results: null };
  fs.writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/** environments/<name>.yaml: the repo's local.yaml with this prefix and these clusters (each on its own node CIDR). */
export function writeEnvironment(appDir: string, name: string, prefix: string, clusters: readonly string[]): void {
  const doc = parseDocument(fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8'));
  const template = (doc.getIn(['clusters', 'e2e']) as { toJSON(): Record<string, any> }).toJSON();
  doc.setIn(['prefix'], prefix);
  doc.setIn(['clusters'], Object.fromEntries(clusters.map((c, i) => [c, { ...template, network: { ...template.network, nodeCidr: `10.${20 + i}.0.0/20` } }])));
  fs.mkdirSync(path.join(appDir, 'environments'), { recursive: true });
  fs.writeFileSync(path.join(appDir, 'environments', `${name}.yaml`), doc.toString());
}
