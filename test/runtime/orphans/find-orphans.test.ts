/** findOrphans / stateIds: what an interrupted apply left outside every state, by exact name, in deletion order. */
import { NamedEnvironment, ambiguity, ownedNames } from '../../../lib/config/owned-names';
import { CloudListing, Ownership, findOrphans, stateIds } from '../../../lib/runtime/orphans/find-orphans';

const lab: NamedEnvironment = { name: 'lab', prefix: 'capi', hasManagementStack: true, clusters: [{ name: 'web', nodeGroups: ['md-0'] }] };
const P = 'capi-lab';
const listing: CloudListing = {
  networks: [{ id: 'n1', name: `${P}-mgmt` }, { id: 'n-public', name: 'public' }],
  subnets: [{ id: 's1', name: `${P}-mgmt`, network_id: 'n1' }],
  routers: [{ id: 'r1', name: `${P}-mgmt` }, { id: 'r-other', name: 'capi-other-mgmt' }],
  ports: [
    { id: 'p-mgmt', name: `${P}-mgmt`, device_owner: 'compute:nova', device_id: 'vm-2', network_id: 'n1' },
    { id: 'p-if-known', name: '', device_owner: 'network:router_interface', device_id: 'r1' },
    { id: 'p-if-lost', name: '', device_owner: 'network:router_interface', device_id: 'r1' },
    { id: 'p-if-other', name: '', device_owner: 'network:router_interface', device_id: 'r-other' },
    { id: 'p-dhcp', name: '', device_owner: 'network:dhcp', device_id: 'dhcp' },
  ],
  securityGroups: [{ id: 'g1', name: `${P}-mgmt` }, { id: 'g-default', name: 'default' }],
  floatingIps: [
    { id: 'f1', description: `${P}-mgmt API` },
    { id: 'f-lost', description: `${P}-mgmt API` },
    { id: 'f-x', description: '' },
    { id: 'f-web', description: `${P}-web Kubernetes API` },
  ],
  servers: [{ id: 'vm-1', name: `${P}-mgmt` }, { id: 'vm-2', name: `${P}-mgmt` }],
  volumes: [{ id: 'v1', name: `${P}-mgmt-boot` }],
};
const managed = (type: string, attributes: Record<string, string>) => ({ mode: 'managed', type, instances: [{ attributes }] });
const management = {
  resources: [
    managed('openstack_networking_network_v2', { id: 'n1' }),
    managed('openstack_networking_subnet_v2', { id: 's1' }),
    managed('openstack_networking_router_v2', { id: 'r1' }),
    managed('openstack_networking_router_interface_v2', { id: 'x', port_id: 'p-if-known' }),
    managed('openstack_networking_port_v2', { id: 'p-mgmt' }),
    managed('openstack_networking_secgroup_v2', { id: 'g1' }),
    managed('openstack_networking_floatingip_v2', { id: 'f1' }),
    managed('openstack_compute_instance_v2', { id: 'vm-1' }),
    managed('openstack_blockstorage_volume_v3', { id: 'v1' }),
  ],
};
const webStack = { resources: [managed('openstack_networking_floatingip_v2', { id: 'f-web' })] };

function ownership(env: NamedEnvironment, known: Set<string>, unreadable?: Map<string, string>): Ownership {
  return { owned: ownedNames(env), known, ambiguity: (o) => ambiguity(env, o), unreadable };
}
const both = new Set([...stateIds(management), ...stateIds(webStack)]);
const show = (o: { kind: string; id: string; label: string; routerId?: string }) => `${o.kind} ${o.id}${o.routerId ? ` @${o.routerId}` : ''} (${o.label})`;

describe('findOrphans', () => {
  test('what has a name of the environment but is in no state, in an order the APIs can delete', () => {
    const { orphans, kept } = findOrphans(listing, ownership(lab, both));
    expect(orphans.map(show)).toEqual([`router interface p-if-lost @r1 (${P}-mgmt interface)`, `server vm-2 (${P}-mgmt)`, `floating IP f-lost (${P}-mgmt API)`]);
    expect(kept).toEqual([]);
  });

  test('every stack\'s state counts: the workload stack\'s API floating IP is no orphan (the management state alone would flag it)', () => {
    expect(findOrphans(listing, ownership(lab, stateIds(management))).orphans.map((o) => o.id)).toContain('f-web');
    expect(findOrphans(listing, ownership(lab, both)).orphans.map((o) => o.id)).not.toContain('f-web');
  });

  test('a workload stack whose state cannot be read: its names are kept, with why', () => {
    const { orphans, kept } = findOrphans(listing, ownership(lab, stateIds(management), new Map([['web', 'the state of stack lab-web could not be read']])));
    expect(orphans.map((o) => o.id)).not.toContain('f-web');
    expect(kept.map((k) => `${k.id}: ${k.reason}`)).toEqual(['f-web: the state of stack lab-web could not be read']);
  });

  test('prod owns nothing of prod-eu: a prefix match would take all of it', () => {
    const eu = JSON.parse(JSON.stringify(listing).split(P).join('capi-prod-eu')) as CloudListing;
    const prod: NamedEnvironment = { ...lab, name: 'prod' };
    expect(findOrphans(eu, ownership(prod, new Set())).orphans).toEqual([]);
    expect(findOrphans(eu, ownership(prod, new Set())).kept).toEqual([]);
  });

  test('a name another split also gives (prefix a + environment b-c = prefix a-b + environment c) is deleted only when tied to the state', () => {
    const twin: NamedEnvironment = { name: 'b-c', prefix: 'a', hasManagementStack: true, clusters: [] };
    const cloud = JSON.parse(JSON.stringify(listing).split(P).join('a-b-c')) as CloudListing;
    const { orphans, kept } = findOrphans(cloud, ownership(twin, stateIds(management)));
    // tied: the interface on router r1 of the state, the server on port p-mgmt of the state
    expect(orphans.map((o) => o.id)).toEqual(['p-if-lost', 'vm-2']);
    // the floating IP is on no port of the state: environment a-b/c's could look just like it
    expect(kept.map((k) => `${k.id}: ${k.reason}`)).toEqual(['f-lost: prefix "a-b" with environment "c" gives the same name, and nothing ties it to this environment\'s state: check it, then delete it by hand']);
    // with an empty state nothing is tied, so nothing is deleted
    const cold = findOrphans(cloud, ownership(twin, new Set()));
    expect(cold.orphans).toEqual([]);
    expect(cold.kept.map((k) => k.kind)).toEqual(['router interface', 'router interface', 'server', 'server', 'floating IP', 'floating IP', 'port', 'volume', 'subnet', 'network', 'router', 'security group']);
  });

  test('a complete state leaves nothing; shared resources are never touched', () => {
    const all = new Set([...both, 'vm-2', 'f-lost', 'p-if-lost']);
    expect(findOrphans(listing, ownership(lab, all))).toEqual({ orphans: [], kept: [] });
    const other: NamedEnvironment = { ...lab, name: 'other', clusters: [] };
    expect(findOrphans(listing, ownership(other, new Set())).orphans.map((o) => o.id)).toEqual(['p-if-other', 'r-other']);
  });

  test('a missing or odd state is no ids, never an exception', () => {
    for (const odd of [undefined, null, {}, { resources: 'x' }, { resources: [null, { instances: [null, { attributes: { id: 7 } }] }] }]) expect(stateIds(odd).size).toBe(0);
  });
});
