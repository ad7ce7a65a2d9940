/**
 * What the cloud e2e (test/e2e/management-cloud.e2e.test.ts) found against a real OpenStack, pinned
 * at synth level: lookups that fail the plan with the missing name, the floating IP associated
 * only after the router interface exists, the VM's fixed address from Neutron's assignment.
 */
import { environment, environmentYaml, synthEnvironment } from './support';

const CLUSTER = `clusters:
  alpha:
    kubernetesVersion: v1.33.x
    controlPlane: { count: 1, flavor: SCS-2V-4-20s }
    nodeGroups:
      - { name: md-0, count: 1, flavor: SCS-2V-4-20s }
`;
const mgmt = synthEnvironment(environment(environmentYaml(`management:\n  flavor: SCS-2V-4\n  image: Ubuntu 24.04\n${CLUSTER}`))).json['unit-management'];
const only = (stack: any, kind: 'data' | 'resource', type: string): [string, any] => {
  const entries = Object.entries(stack[kind]?.[type] ?? {});
  expect(entries).toHaveLength(1);
  return entries[0] as [string, any];
};

describe('cloud lookups of the management stack', () => {
  const [authId] = only(mgmt, 'data', 'openstack_identity_auth_scope_v3');
  const authAddress = `data.openstack_identity_auth_scope_v3.${authId}`;

  test('authentication is checked first: every other lookup waits for it (one error for wrong credentials)', () => {
    for (const type of ['openstack_compute_flavor_v2', 'openstack_images_image_ids_v2', 'openstack_networking_network_v2']) {
      const [, body] = only(mgmt, 'data', type);
      expect(body.depends_on).toEqual([authAddress]);
    }
  });

  test('flavor and external network lookups are keyed by the searched name, so a miss names it', () => {
    const [flavorId, flavor] = only(mgmt, 'data', 'openstack_compute_flavor_v2');
    expect(flavor.for_each).toEqual({ 'SCS-2V-4': 'SCS-2V-4' });
    expect(flavor.name).toBe('SCS-2V-4');
    const [networkId, network] = only(mgmt, 'data', 'openstack_networking_network_v2');
    expect(network.for_each).toEqual({ public: 'public' });
    expect(network).toMatchObject({ external: true, name: 'public' });

    const [, server] = only(mgmt, 'resource', 'openstack_compute_instance_v2');
    expect(server.flavor_id).toBe(`\${one(values(data.openstack_compute_flavor_v2.${flavorId})).id}`);
    const [, router] = only(mgmt, 'resource', 'openstack_networking_router_v2');
    expect(router.external_network_id).toBe(`\${one(values(data.openstack_networking_network_v2.${networkId})).id}`);
  });

  test('an external network given by id is keyed by the id', () => {
    const byId = synthEnvironment(environment(environmentYaml().replace('externalNetworkName: public', 'externalNetworkId: 0b6a9e4c-7f1d-4f38-9d3c-0e3f1b2a4c5d'))).json['unit-management'];
    const [, network] = only(byId, 'data', 'openstack_networking_network_v2');
    expect(network.for_each).toEqual({ '0b6a9e4c-7f1d-4f38-9d3c-0e3f1b2a4c5d': '0b6a9e4c-7f1d-4f38-9d3c-0e3f1b2a4c5d' });
    expect(network.network_id).toBe('0b6a9e4c-7f1d-4f38-9d3c-0e3f1b2a4c5d');
    expect(network.name).toBeUndefined();
  });

  test('a missing image fails a precondition that names the image and the project', () => {
    const [candidatesId, candidates] = only(mgmt, 'data', 'openstack_images_image_ids_v2');
    expect(candidates.name).toBe('Ubuntu 24.04');
    const [imageId, image] = only(mgmt, 'data', 'openstack_images_image_v2');
    expect(image).toMatchObject({ name: 'Ubuntu 24.04', most_recent: true });
    const [precondition] = image.lifecycle.precondition;
    expect(precondition.condition).toBe(`\${(length(data.openstack_images_image_ids_v2.${candidatesId}.ids) >= 1)}`);
    expect(precondition.error_message).toContain('Image "Ubuntu 24.04" not found');
    expect(precondition.error_message).toContain(`\${${authAddress}.project_name}`);
    const [, volume] = only(mgmt, 'resource', 'openstack_blockstorage_volume_v3');
    expect(volume.image_id).toBe(`\${data.openstack_images_image_v2.${imageId}.id}`);
  });

  test('an image name with template characters stays literal in the lookups and the message', () => {
    const odd = synthEnvironment(environment(environmentYaml('management:\n  image: "odd ${name}"\n'))).json['unit-management'];
    const [, image] = only(odd, 'data', 'openstack_images_image_v2');
    expect(image.lifecycle.precondition[0].error_message).toContain('Image "odd $${name}" not found');
    expect(image.name).toBe('odd $${name}');
    expect(only(odd, 'data', 'openstack_images_image_ids_v2')[1].name).toBe('odd $${name}');
  });
});

describe('management endpoint wiring', () => {
  test('the floating IP is associated only after the router interface exists (Neutron refuses it before)', () => {
    const [interfaceId] = only(mgmt, 'resource', 'openstack_networking_router_interface_v2');
    const [, association] = only(mgmt, 'resource', 'openstack_networking_floatingip_associate_v2');
    expect(association.depends_on).toEqual([`openstack_networking_router_interface_v2.${interfaceId}`]);
  });

  test('the fixed address in the API certificate comes from the port as Neutron assigned it (all_fixed_ips)', () => {
    const [portId] = only(mgmt, 'resource', 'openstack_networking_port_v2');
    const [, server] = only(mgmt, 'resource', 'openstack_compute_instance_v2');
    expect(server.user_data).toContain(`\${element(openstack_networking_port_v2.${portId}.all_fixed_ips, 0)}`);
    expect(server.user_data).not.toContain('.fixed_ip[0].ip_address');
  });

  test('other stacks get the external network from resource attributes, not from the keyed lookup', () => {
    const outputs = Object.keys(mgmt.output).filter((k) => k.startsWith('cross-stack-output-'));
    expect(outputs.some((k) => k.includes('openstack_networking_router_v2') && k.endsWith('external_network_id'))).toBe(true);
    expect(outputs.some((k) => k.includes('openstack_networking_floatingip_v2') && k.endsWith('pool'))).toBe(true);
    expect(outputs.some((k) => k.includes('dataopenstack_networking_network_v2'))).toBe(false);
  });
});
