import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdktf';
// the global declaration of the matchers test/setup-cdktf.ts installs
import type {} from 'cdktf/lib/testing/adapters/jest';
import { parseEnvironment } from '../../lib/config/load';
import { ComputeInstanceV2 } from '../../lib/gen/openstack/compute-instance-v2';
import { DataOpenstackComputeFlavorV2 } from '../../lib/gen/openstack/data-openstack-compute-flavor-v2';
import { NetworkingRouterV2 } from '../../lib/gen/openstack/networking-router-v2';
import { environment, environmentYaml, resourcesOf, synthEnvironment } from './support';

describe('ManagementStack', () => {
  const closed = synthEnvironment(environment(environmentYaml()));
  const mgmt = closed.json['unit-management'];

  test('creates the OpenStack side of an environment', () => {
    const synthesized = Testing.synth(closed.stacks.management!);
    // nothing on the VM talks to OpenStack: no credential to hand it (each cluster gets its own)
    expect(mgmt.resource.openstack_identity_application_credential_v3).toBeUndefined();
    expect(synthesized).toHaveResourceWithProperties(NetworkingRouterV2, { name: 'capi-unit-mgmt' });
    expect(synthesized).toHaveResourceWithProperties(ComputeInstanceV2, { name: 'capi-unit-mgmt' });
    expect(synthesized).toHaveDataSourceWithProperties(DataOpenstackComputeFlavorV2, { name: 'SCS-2V-4' });
    for (const type of [
      'openstack_networking_network_v2',
      'openstack_networking_subnet_v2',
      'openstack_networking_router_v2',
      'openstack_networking_router_interface_v2',
      'openstack_networking_port_v2',
      'openstack_networking_floatingip_v2',
      'openstack_networking_floatingip_associate_v2',
      'openstack_compute_instance_v2',
    ]) {
      expect(resourcesOf(mgmt, type)).toHaveLength(1);
    }
    expect(Object.keys(mgmt.data)).toEqual(expect.arrayContaining(['openstack_compute_flavor_v2', 'openstack_images_image_v2', 'openstack_networking_network_v2']));
  });

  test('subnet carries the allocation pool and DNS servers of the environment', () => {
    const [subnet] = resourcesOf(mgmt, 'openstack_networking_subnet_v2');
    expect(subnet.cidr).toBe('10.0.0.0/24');
    expect(subnet.allocation_pool).toEqual([{ start: '10.0.0.11', end: '10.0.0.254' }]);
    expect(subnet.dns_nameservers).toEqual(['5.1.66.255', '185.150.99.255']);
  });

  test('API and SSH are closed by default (without the readiness wait): only ICMP and egress rules on the management group', () => {
    const closed = synthEnvironment(environment(environmentYaml('management:\n  waitForReady: false\n'))).json['unit-management'];
    const rules = resourcesOf(closed, 'openstack_networking_secgroup_rule_v2');
    const ingress = rules.filter((r) => r.direction === 'ingress');
    expect(ingress.filter((r) => r.port_range_min === 6443 || r.port_range_min === 22).every((r) => r.remote_ip_prefix === '10.0.0.0/24')).toBe(true);
    expect(ingress.some((r) => r.port_range_min === 6443)).toBe(false);
    // Neutron's default rules are removed so the group holds exactly what the stack declares.
    for (const g of resourcesOf(closed, 'openstack_networking_secgroup_v2')) expect(g.delete_default_rules).toBe(true);
  });

  test('each allowed CIDR opens exactly one rule, on the right port', () => {
    const open = synthEnvironment(environment(environmentYaml('management:\n  apiAllowedCidrs: [198.51.100.0/24, 192.0.2.7/32]\n  sshAllowedCidrs: [192.0.2.0/28]\n')));
    const rules = resourcesOf(open.json['unit-management'], 'openstack_networking_secgroup_rule_v2').filter((r) => r.direction === 'ingress' && r.protocol === 'tcp');
    const fromOutside = rules.filter((r) => r.remote_ip_prefix !== '10.0.0.0/24').map((r) => `${r.port_range_min}-${r.port_range_max} ${r.remote_ip_prefix}`);
    expect(fromOutside.sort()).toEqual(['22-22 192.0.2.0/28', '6443-6443 192.0.2.7/32', '6443-6443 198.51.100.0/24']);
  });

  test('boot volume by default, none when bootVolumeSizeGb is 0; key pair only from a given public key', () => {
    const [withVolume] = resourcesOf(mgmt, 'openstack_compute_instance_v2');
    const [volume] = resourcesOf(mgmt, 'openstack_blockstorage_volume_v3');
    // a named volume of its own, made from the image beside the network; the server only attaches it
    expect(volume).toMatchObject({ name: 'capi-unit-mgmt-boot', size: 30 });
    expect(volume.image_id).toMatch(/^\$\{data\.openstack_images_image_v2\./);
    expect(JSON.stringify(volume)).not.toContain('openstack_networking');
    expect(withVolume.block_device).toEqual([expect.objectContaining({ source_type: 'volume', destination_type: 'volume', boot_index: 0, delete_on_termination: false })]);
    expect(withVolume.block_device[0].uuid).toMatch(/^\$\{openstack_blockstorage_volume_v3\./);
    expect(resourcesOf(mgmt, 'openstack_compute_keypair_v2')).toHaveLength(0);
    const other = synthEnvironment(environment(environmentYaml('management:\n  bootVolumeSizeGb: 0\n  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWkS3dU0W5yq7Lx5lVb7kN0Uo3J1n9oQ4mYwq2Q7f1x op@laptop\n')));
    const json = other.json['unit-management'];
    const [diskless] = resourcesOf(json, 'openstack_compute_instance_v2');
    expect(diskless.block_device).toBeUndefined();
    expect(resourcesOf(json, 'openstack_blockstorage_volume_v3')).toHaveLength(0);
    const [key] = resourcesOf(json, 'openstack_compute_keypair_v2');
    expect(key.public_key).toMatch(/^ssh-ed25519 /);
    expect(diskless.key_pair).toContain('openstack_compute_keypair_v2');
  });

  test('the CA and admin certificate come from the tls provider; credentials are only in sensitive outputs', () => {
    expect(resourcesOf(mgmt, 'tls_self_signed_cert')).toHaveLength(1);
    expect(resourcesOf(mgmt, 'tls_locally_signed_cert')).toHaveLength(1);
    const outputs = mgmt.output;
    expect(outputs.admin_key.sensitive).toBe(true);
    expect(outputs.admin_certificate.sensitive).toBe(true);
    expect(outputs.kubeconfig.sensitive).toBe(true);
    expect(outputs.api_endpoint.value).toMatch(/^https:\/\/\$\{openstack_networking_floatingip_v2\.[^}]+\.address\}:6443$/);
    // No literal key material anywhere in the synthesized JSON.
    expect(JSON.stringify(mgmt)).not.toMatch(/BEGIN (RSA |EC )?PRIVATE KEY/);
  });

  test('user data puts the floating IP into the API certificate and carries the CA as a Terraform expression', () => {
    const [server] = resourcesOf(mgmt, 'openstack_compute_instance_v2');
    expect(server.user_data).toContain('openstack_networking_floatingip_v2.');
    expect(server.user_data).toContain('tls_private_key.');
    expect(server.user_data).toMatch(/^#cloud-config/);
  });

  test('readiness gate: on by default, absent with waitForReady: false', () => {
    // the others are the first-boot record and the controller upgrade (management-first-boot.test.ts)
    const gate = resourcesOf(mgmt, 'terraform_data').filter((r) => JSON.stringify(r.provisioner ?? []).includes('wait-for-management'));
    expect(gate).toHaveLength(1);
    expect(JSON.stringify(gate[0])).toContain('wait-for-management');
    expect(mgmt.output.kubeconfig.depends_on[0]).toMatch(/^terraform_data\.ControllerUpgrade/);
    const off = synthEnvironment(environment(environmentYaml('management:\n  waitForReady: false\n'))).json['unit-management'];
    expect(resourcesOf(off, 'terraform_data').filter((r) => r.provisioner)).toHaveLength(0);
    expect(off.output.kubeconfig.depends_on[0]).toMatch(/^openstack_compute_instance_v2\./);
  });

  test('the environment variable accepts only its own environment name', () => {
    const variable = mgmt.variable.environment;
    expect(variable.default).toBe('unit');
    expect(variable.validation[0].condition).toContain('"unit"');
    expect(variable.validation[0].error_message).toContain('unit');
  });

  test('the OpenStack provider uses the endpoint interface CAPO gets; a CA of the environment file is trusted by Terraform too', () => {
    expect(mgmt.provider.openstack).toEqual([{ cloud: 'testcloud', region: 'RegionOne', endpoint_type: 'public' }]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-ca-'));
    fs.writeFileSync(path.join(dir, 'api-ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const text = environmentYaml().replace('  region: RegionOne\n', '  region: RegionOne\n  interface: internal\n  caCertificateFile: api-ca.pem\n');
    const withCa = synthEnvironment(parseEnvironment(text, path.join(dir, 'unit.yaml'))).json['unit-management'];
    expect(withCa.provider.openstack).toEqual([{ cloud: 'testcloud', region: 'RegionOne', endpoint_type: 'internal', cacert_file: path.join(dir, 'api-ca.pem') }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('management.trustedCaCertificateFile reaches the VM\'s cloud-init (ca_certs) and its first-boot record', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-trust-'));
    fs.writeFileSync(path.join(dir, 'site-ca.pem'), '# the site mirror\n-----BEGIN CERTIFICATE-----\nMIIBsite\n-----END CERTIFICATE-----\n');
    const text = environmentYaml('management:\n  trustedCaCertificateFile: site-ca.pem\n');
    const json = synthEnvironment(parseEnvironment(text, path.join(dir, 'unit.yaml'))).json['unit-management'];
    fs.rmSync(dir, { recursive: true, force: true });
    const [server] = resourcesOf(json, 'openstack_compute_instance_v2');
    expect(server.user_data).toMatch(/ca_certs:\s+trusted:\s+- \|\s+-----BEGIN CERTIFICATE-----\s+MIIBsite\s+-----END CERTIFICATE-----/);
    expect(server.user_data).not.toContain('the site mirror');
    const [plain] = resourcesOf(mgmt, 'openstack_compute_instance_v2');
    expect(plain.user_data).not.toContain('ca_certs');
    const record = (j: any) => resourcesOf(j, 'terraform_data').find((r) => r.input?.image_id).input.management_trustedCaCertificateFile;
    expect(record(json)).not.toBe(record(mgmt));
  });

  test('a given public key reaches sshUsername through cloud-init, not only the image default user', () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWkS3dU0W5yq7Lx5lVb7kN0Uo3J1n9oQ4mYwq2Q7f1x op@laptop';
    const json = synthEnvironment(environment(environmentYaml(`management:\n  sshUsername: operator\n  sshPublicKey: ${key}\n`))).json['unit-management'];
    const [server] = resourcesOf(json, 'openstack_compute_instance_v2');
    expect(server.user_data).toMatch(/name: operator/);
    expect(server.user_data).toContain(key);
    const [plain] = resourcesOf(mgmt, 'openstack_compute_instance_v2');
    expect(plain.user_data).not.toMatch(/ssh_authorized_keys/);
  });

  test('the router availability zone hint is set only when configured', () => {
    const [router] = resourcesOf(mgmt, 'openstack_networking_router_v2');
    expect(router.availability_zone_hints).toBeUndefined();
    const hinted = synthEnvironment(environment(environmentYaml('  routerAvailabilityZoneHint: az1\n'))).json['unit-management'];
    expect(resourcesOf(hinted, 'openstack_networking_router_v2')[0].availability_zone_hints).toEqual(['az1']);
  });
});
