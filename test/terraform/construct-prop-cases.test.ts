/**
 * Wrong props that synthesis can see are refused at construction, naming the construct, the prop,
 * the expectation and the value (the cases a new user hit, issue 26).
 */
import { WorkloadCluster } from '../../lib/clusters/workload-cluster';
import { KubeManifests } from '../../lib/kube/kube-manifests';
import { ApplicationCredential } from '../../lib/openstack/application-credential';
import { CloudLookups } from '../../lib/openstack/cloud-lookups';
import { ClusterLeftoversCleanup } from '../../lib/openstack/cluster-leftovers';
import { ManagementNetwork } from '../../lib/openstack/management-network';
import { SecurityGroup } from '../../lib/openstack/security-group';
import { ClusterPki } from '../../lib/pki/cluster-pki';
import { environment, environmentYaml } from '../stacks/support';
import { NETWORK, errorOf, providerStack } from './support';
import { existingKubeconfig } from '../support/kubeconfig-fixture';

const stack = providerStack;

const RULE = { direction: 'ingress', ethertype: 'IPv6', protocol: 'tcp', portRangeMin: 443, portRangeMax: 443, description: 'api' } as const;
const LEFTOVERS = { clusterName: 'capi-env-web', cloud: 'testcloud' };
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns' } });

describe('construct props refused at construction', () => {
  test('ManagementNetwork: a pool that starts after it ends', () => {
    expect(errorOf(() => new ManagementNetwork(stack(), 'Network', { ...NETWORK, allocationPoolStart: '10.0.0.200', allocationPoolEnd: '10.0.0.100' }))).toBe(
      'Invalid props of ManagementNetwork at unit/Network (1 problem):\n  allocationPoolStart: expected an address at most allocationPoolEnd (10.0.0.100), found "10.0.0.200"',
    );
  });

  test('ManagementNetwork: a DNS server that is no address', () => {
    expect(errorOf(() => new ManagementNetwork(stack(), 'Network', { ...NETWORK, dnsNameservers: ['9.9.9.9', 'not-an-ip'] }))).toContain('dnsNameservers[1]: expected an IPv4 address, found "not-an-ip"');
  });

  test('SecurityGroup: an IPv6 rule with an IPv4 prefix (and an IPv6 prefix on it passes)', () => {
    expect(errorOf(() => new SecurityGroup(stack(), 'Group', { name: 'g', rules: [{ ...RULE, remoteIpPrefix: '203.0.113.0/24' }] }))).toContain(
      'rules[0].remoteIpPrefix: expected an IPv6 CIDR such as 2001:db8::/64 (the rule is IPv6), found "203.0.113.0/24"',
    );
    expect(errorOf(() => new SecurityGroup(stack(), 'Group', { name: 'g', rules: [{ ...RULE, remoteIpPrefix: '2001:db8::/64' }] }))).toBe('(no error)');
  });

  test('ClusterPki: an admin certificate outliving its CA', () => {
    expect(errorOf(() => new ClusterPki(stack(), 'Pki', { caCommonName: 'x', caValidityHours: 100, adminValidityHours: 200, adminEarlyRenewalHours: 10 }))).toContain(
      'adminValidityHours: expected a whole number from 1 to 100, found number 200',
    );
    expect(errorOf(() => new ClusterPki(stack(), 'Pki', { caCommonName: 'x', caValidityHours: 100, adminEarlyRenewalHours: 10 }))).toContain(
      'adminValidityHours: expected a value at most caValidityHours (100), found nothing (the default 8760 outlives the CA)',
    );
  });

  test('ApplicationCredential: an expiry that is no timestamp', () => {
    expect(errorOf(() => new ApplicationCredential(stack(), 'Credential', { name: 'c', expiresAt: 'tomorrow' }))).toContain(
      'expiresAt: expected an RFC 3339 timestamp such as 2027-01-31T00:00:00Z, found "tomorrow"',
    );
    expect(errorOf(() => new ApplicationCredential(stack(), 'Credential', { name: 'c', expiresAt: '2027-01-31T00:00:00Z' }))).toBe('(no error)');
  });

  test('CloudLookups: an empty flavor name', () => {
    expect(errorOf(() => new CloudLookups(stack(), 'Cloud', { flavorName: '', imageName: 'Ubuntu 22.04' }))).toBe(
      'Invalid props of CloudLookups at unit/Cloud (1 problem):\n  flavorName: expected a value, found ""',
    );
  });

  test("ClusterLeftoversCleanup: Cinder CSI's default cluster name with volumes deleted (kept volumes pass)", () => {
    expect(errorOf(() => new ClusterLeftoversCleanup(stack(), 'Leftovers', { ...LEFTOVERS, csiClusterName: 'kubernetes' }))).toContain(
      `csiClusterName: expected anything but "kubernetes" (Cinder CSI's default marks the volumes of every cluster that keeps it`,
    );
    expect(errorOf(() => new ClusterLeftoversCleanup(stack(), 'Leftovers', { ...LEFTOVERS, csiClusterName: 'kubernetes', deleteVolumes: false }))).toBe('(no error)');
  });

  test('KubeManifests: a duplicate names the object', () => {
    expect(errorOf(() => new KubeManifests(stack(), 'Objects', { objects: [secret('a'), secret('b'), secret('a')] }))).toBe(
      'Invalid props of KubeManifests at unit/Objects:\n  objects: expected each kind/name once, found Secret/a 2 times',
    );
  });

  describe('WorkloadCluster', () => {
    const acme = environment(environmentYaml('clusters:\n  web: {}\n'), 'acme');
    const other = environment(environmentYaml('clusters:\n  web: {}\n'), 'zzz-other');
    const existing = environment(environmentYaml(`existingManagementCluster:\n  kubeconfigFile: ${existingKubeconfig()}\nclusters:\n  web: {}\n`), 'acme');

    test('a cluster of another environment', () => {
      expect(errorOf(() => new WorkloadCluster(stack(), 'Web', { environment: acme, cluster: other.clusters[0], management: { kind: 'existing' } }))).toContain(
        'cluster: expected one of environment.clusters of environment "acme" (web), as loaded (clusterNamed(environment, name) picks one), found cluster "web" of stack zzz-other-web',
      );
    });

    test('a hand-made copy of its own cluster', () => {
      const copy = { ...acme.clusters[0], spec: { ...acme.clusters[0].spec } };
      expect(errorOf(() => new WorkloadCluster(stack(), 'Web', { environment: acme, cluster: copy, management: { kind: 'existing' } }))).toContain(
        'found another object for cluster "web" (a copy made by hand)',
      );
    });

    test("an existing management cluster's egressCidr that is no CIDR", () => {
      expect(errorOf(() => new WorkloadCluster(stack(), 'Web', { environment: existing, cluster: existing.clusters[0], management: { kind: 'existing', egressCidr: 'nope' } }))).toContain(
        'management.egressCidr: expected an IPv4 CIDR such as 10.0.0.0/24, found "nope"',
      );
    });
  });
});
