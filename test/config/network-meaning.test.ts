/**
 * Addresses are taken as written or refused: no leading zeros, no surrounding whitespace (both were
 * emitted verbatim), and ranges that cannot work (pool on the gateway, empty pool, DNS servers
 * Neutron refuses, a pod range too small, subnets on ranges the hosts already use) are refused.
 */
import { environment, environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

function withNetwork(lines: string, extra = ''): string {
  return environmentYaml(extra).replace('network:\n', `network:\n${lines}`);
}

function messages(text: string): string[] {
  const e = refusalOf(() => environment(text));
  expect(e.issues.every((i) => i.line !== undefined)).toBe(true);
  return e.issues.map((i) => `${i.path}: ${i.message}`);
}

describe('canonical addresses only', () => {
  test.each([
    ['a leading zero in a CIDR', '', 'clusters:\n  demo:\n    network: {nodeCidr: 010.8.0.0/20}\n', 'clusters.demo.network.nodeCidr: expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24 (no leading zeros, no spaces), found "010.8.0.0/20"'],
    ['a leading zero in a prefix length', '  managementCidr: 10.0.0.0/024\n', '', 'network.managementCidr: expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24 (no leading zeros, no spaces), found "10.0.0.0/024"'],
    ['a trailing newline in a CIDR', '  managementCidr: "10.0.0.0/24\\n"\n', '', 'network.managementCidr: expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24 (no leading zeros, no spaces), found "10.0.0.0/24\\n"'],
    ['a space before a pool address', '  allocationPoolStart: " 10.0.0.20"\n', '', 'network.allocationPoolStart: expected an IPv4 address, like 10.0.0.11 (no leading zeros, no spaces), found " 10.0.0.20"'],
    ['a trailing space in a DNS server', '  dnsNameservers: ["192.0.2.53 "]\n', '', 'network.dnsNameservers[0]: expected an IPv4 address, like 10.0.0.11 (no leading zeros, no spaces), found "192.0.2.53 "'],
  ])('%s is refused', (_, network, extra, message) => {
    expect(messages(withNetwork(network, extra))).toEqual([message]);
  });

  test('canonical values load as written', () => {
    const env = environment(withNetwork('  managementCidr: 10.0.0.0/24\n  dnsNameservers: [192.0.2.53]\n', 'clusters:\n  demo:\n    network: {nodeCidr: 10.8.0.0/20}\n'));
    expect(env.spec.clusters.demo.network.nodeCidr).toBe('10.8.0.0/20');
    expect(env.spec.network.dnsNameservers).toEqual(['192.0.2.53']);
  });
});

describe('what the addresses mean', () => {
  test('a pool starting on the gateway', () => {
    expect(messages(withNetwork('  allocationPoolStart: 10.0.0.1\n'))).toEqual([
      'network.allocationPoolStart: expected a pool that leaves out the gateway 10.0.0.1 (the first address of 10.0.0.0/24, the router\'s), found "10.0.0.1"',
    ]);
  });

  test('a pool end below the default start', () => {
    expect(messages(withNetwork('  allocationPoolEnd: 10.0.0.5\n'))).toEqual([
      'network.allocationPoolEnd: expected a pool that is not empty: an address on the right side of the default start 10.0.0.11 (set both ends to move the pool), found "10.0.0.5"',
    ]);
    expect(environment(withNetwork('  managementCidr: 10.0.0.0/28\n  allocationPoolStart: 10.0.0.14\n')).allocationPool).toEqual({ start: '10.0.0.14', end: '10.0.0.14' });
  });

  test('duplicate DNS servers and more than Neutron accepts', () => {
    expect(messages(withNetwork('  dnsNameservers: [192.0.2.1, 192.0.2.2, 192.0.2.1]\n'))).toEqual(['network.dnsNameservers[2]: expected each DNS server once, found "192.0.2.1" again']);
    expect(messages(withNetwork(`  dnsNameservers: [${[1, 2, 3, 4, 5, 6].map((i) => `192.0.2.${i}`).join(', ')}]\n`))).toEqual([
      "network.dnsNameservers: expected at most 5 DNS servers (Neutron's default max_dns_nameservers), found 6",
    ]);
  });

  test('a pod range with fewer /24s than nodes', () => {
    expect(messages(withNetwork('', 'clusters:\n  demo:\n    network: {podCidr: 192.168.0.0/23}\n'))).toEqual([
      'clusters.demo.network.podCidr: expected a range with a /24 for each of the 4 nodes (control plane and node groups), found "192.168.0.0/23" with room for 2',
    ]);
    expect(environment(withNetwork('', 'clusters:\n  demo:\n    network: {podCidr: 192.168.0.0/22}\n')).clusters).toHaveLength(1);
  });

  test.each([
    ['172.17.0.0/24', "172.17.0.0/16 (docker0, docker's default bridge on the VM)"],
    ['10.244.8.0/24', '10.244.0.0/16 (the pods of the kind management cluster)'],
    ['127.0.0.0/24', '127.0.0.0/8 (loopback)'],
    ['169.254.0.0/24', '169.254.0.0/16 (link-local, the metadata service)'],
    ['224.0.0.0/24', '224.0.0.0/4 (multicast)'],
  ])('a management subnet on %s', (cidr, reserved) => {
    expect(messages(withNetwork(`  managementCidr: ${cidr}\n  allocationPoolStart: ${cidr.replace(/0\/24$/, '11')}\n  allocationPoolEnd: ${cidr.replace(/0\/24$/, '254')}\n`))).toEqual([
      `network.managementCidr: expected a range that does not overlap ${reserved}, found "${cidr}"`,
    ]);
  });

  test('a cluster range on loopback', () => {
    expect(messages(withNetwork('', 'clusters:\n  demo:\n    network: {nodeCidr: 127.8.0.0/20}\n'))).toEqual(['clusters.demo.network.nodeCidr: expected a range that does not overlap 127.0.0.0/8 (loopback), found "127.8.0.0/20"']);
  });
});
