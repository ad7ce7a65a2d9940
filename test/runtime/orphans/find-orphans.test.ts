/** findOrphans / stateIds: what an interrupted apply left outside the state, in deletion order. */
import { CloudListing, findOrphans, stateIds } from '../../../lib/runtime/orphans/find-orphans';

const P = 'capi-lab';
const listing: CloudListing = {
  networks: [{ id: 'n1', name: `${P}-mgmt` }, { id: 'n-public', name: 'public' }],
  subnets: [{ id: 's1', name: `${P}-mgmt` }],
  routers: [{ id: 'r1', name: `${P}-mgmt` }, { id: 'r-other', name: 'capi-other-mgmt' }],
  ports: [
    { id: 'p-mgmt', name: `${P}-mgmt`, device_owner: 'compute:nova', device_id: 'vm-2' },
    { id: 'p-if-known', name: '', device_owner: 'network:router_interface', device_id: 'r1' },
    { id: 'p-if-lost', name: '', device_owner: 'network:router_interface', device_id: 'r1' },
    { id: 'p-if-other', name: '', device_owner: 'network:router_interface', device_id: 'r-other' },
    { id: 'p-dhcp', name: '', device_owner: 'network:dhcp', device_id: 'dhcp' },
  ],
  securityGroups: [{ id: 'g1', name: `${P}-mgmt` }, { id: 'g-default', name: 'default' }],
  floatingIps: [{ id: 'f1', description: `${P}-mgmt API` }, { id: 'f-lost', description: `${P}-mgmt API` }, { id: 'f-x', description: '' }],
  servers: [{ id: 'vm-1', name: `${P}-mgmt` }, { id: 'vm-2', name: `${P}-mgmt` }],
  volumes: [{ id: 'v1', name: `${P}-mgmt-boot` }],
};
const state = {
  resources: [
    { mode: 'managed', type: 'openstack_networking_network_v2', instances: [{ attributes: { id: 'n1' } }] },
    { mode: 'managed', type: 'openstack_networking_subnet_v2', instances: [{ attributes: { id: 's1' } }] },
    { mode: 'managed', type: 'openstack_networking_router_v2', instances: [{ attributes: { id: 'r1' } }] },
    { mode: 'managed', type: 'openstack_networking_router_interface_v2', instances: [{ attributes: { id: 'x', port_id: 'p-if-known' } }] },
    { mode: 'managed', type: 'openstack_networking_port_v2', instances: [{ attributes: { id: 'p-mgmt' } }] },
    { mode: 'managed', type: 'openstack_networking_secgroup_v2', instances: [{ attributes: { id: 'g1' } }] },
    { mode: 'managed', type: 'openstack_networking_floatingip_v2', instances: [{ attributes: { id: 'f1' } }] },
    { mode: 'managed', type: 'openstack_compute_instance_v2', instances: [{ attributes: { id: 'vm-1' } }] },
    { mode: 'managed', type: 'openstack_blockstorage_volume_v3', instances: [{ attributes: { id: 'v1' } }] },
  ],
};

describe('findOrphans', () => {
  test('what is named after the environment but in no state, in an order the APIs can delete', () => {
    expect(findOrphans(listing, stateIds(state), P).map((o) => `${o.kind} ${o.id}${o.routerId ? ` @${o.routerId}` : ''} (${o.label})`)).toEqual([
      `router interface p-if-lost @r1 (${P}-mgmt interface)`,
      `server vm-2 (${P}-mgmt)`,
      `floating IP f-lost (${P}-mgmt API)`,
    ]);
  });

  test('a complete state leaves nothing; another environment and shared resources are never touched', () => {
    const all = stateIds({ resources: [...state.resources, { mode: 'managed', instances: [{ attributes: { id: 'vm-2' } }, { attributes: { id: 'f-lost', port_id: 'p-if-lost' } }] }] });
    expect(findOrphans(listing, all, P)).toEqual([]);
    expect(findOrphans(listing, new Set(), 'capi-other').map((o) => o.id)).toEqual(['p-if-other', 'r-other']);
  });

  test('a missing or odd state is no ids, never an exception', () => {
    for (const odd of [undefined, null, {}, { resources: 'x' }, { resources: [null, { instances: [null, { attributes: { id: 7 } }] }] }]) expect(stateIds(odd).size).toBe(0);
  });
});
