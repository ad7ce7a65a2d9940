import { App, TerraformStack, Testing } from 'cdktf';
import { OpenstackProvider } from '../../lib/gen/openstack/provider';
import { TlsProvider } from '../../lib/gen/tls/provider';
import { ReadinessGate } from '../../lib/kube/readiness-gate';
import { ManagementNetwork } from '../../lib/openstack/management-network';
import { ManagementServer } from '../../lib/openstack/management-server';
import { SecurityGroup } from '../../lib/openstack/security-group';
import { ClusterPki } from '../../lib/pki/cluster-pki';
import { ApplicationCredential } from '../../lib/openstack/application-credential';
import { ManagementEndpoint } from '../../lib/openstack/management-endpoint';
import { WorkloadCloudResources } from '../../lib/openstack/workload-cloud-resources';
import { KubeManifests } from '../../lib/kube/kube-manifests';
import { TimeProvider } from '../../lib/gen/time/provider';
import { NETWORK, errorOf } from './support';

/** Constructs refuse props that synthesis can see are wrong, with the loader's `field: expected …, found …`. */
function stack(): TerraformStack {
  const s = new TerraformStack(Testing.app(), 'unit');
  new OpenstackProvider(s, 'OpenStack', { cloud: 'c' });
  new TlsProvider(s, 'Tls');
  return s;
}

const SERVER = { name: 'vm', portId: 'p', flavorId: 'f', imageId: 'i', userData: '#cloud-config' };
const GATE = { server: 'https://203.0.113.10:6443', caCertificatePem: 'ca', clientCertificatePem: 'cert', clientKeyPem: 'key', triggers: {} };

describe('ManagementNetwork', () => {
  test('a CIDR of /33 and a pool outside the CIDR are refused together', () => {
    const message = errorOf(() => new ManagementNetwork(stack(), 'Network', { ...NETWORK, cidr: '10.0.0.0/33', allocationPoolEnd: '10.9.0.1' }));
    expect(message).toContain('Invalid props of ManagementNetwork at unit/Network');
    expect(message).toContain('cidr: expected an IPv4 CIDR such as 10.0.0.0/24, found "10.0.0.0/33"');
    const inside = errorOf(() => new ManagementNetwork(stack(), 'Network', { ...NETWORK, allocationPoolEnd: '10.9.0.1' }));
    expect(inside).toContain('allocationPoolEnd: expected an address inside 10.0.0.0/24, found "10.9.0.1"');
  });

  test('without externalNetworkId (a JavaScript caller) it refuses instead of building a router without gateway', () => {
    const props = { ...NETWORK, externalNetworkId: undefined } as unknown as typeof NETWORK;
    expect(errorOf(() => new ManagementNetwork(stack(), 'Network', props))).toContain('externalNetworkId: expected a value, found nothing');
  });

  test('valid props and apply-time tokens pass', () => {
    const s = stack();
    const token = new ManagementNetwork(s, 'First', NETWORK).subnet.cidr;
    expect(errorOf(() => new ManagementNetwork(s, 'Second', { ...NETWORK, cidr: token }))).toBe('(no error)');
  });
});

describe('ManagementServer', () => {
  test.each([[-10], [2.5], ['30' as unknown as number]])('bootVolumeSizeGb %p is refused', (size) => {
    expect(errorOf(() => new ManagementServer(stack(), 'Server', { ...SERVER, bootVolumeSizeGb: size }))).toMatch(/bootVolumeSizeGb: expected a whole number from 0 to 10000, found/);
  });
});

describe('SecurityGroup', () => {
  test('"anywhere" as a CIDR and port 70000 are refused', () => {
    const message = errorOf(
      () => new SecurityGroup(stack(), 'Group', { name: 'g', rules: [{ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portRangeMin: 70000, portRangeMax: 70000, remoteIpPrefix: 'anywhere', description: 'x' }] }),
    );
    expect(message).toContain('rules[0].remoteIpPrefix: expected an IPv4 CIDR such as 10.0.0.0/24, found "anywhere"');
    expect(message).toContain('rules[0].portRangeMin: expected a whole number from 1 to 65535, found number 70000');
  });

  test('a reversed port range is refused', () => {
    const rules = [{ direction: 'ingress' as const, ethertype: 'IPv4' as const, protocol: 'tcp' as const, portRangeMin: 600, portRangeMax: 500, description: 'x' }];
    expect(errorOf(() => new SecurityGroup(stack(), 'Group', { name: 'g', rules }))).toContain('rules[0].portRangeMax: expected a whole number from 600 to 65535, found number 500');
  });
});

describe('ClusterPki', () => {
  test('negative hours and a renewal window as long as the validity are refused', () => {
    const message = errorOf(() => new ClusterPki(stack(), 'Pki', { caCommonName: 'x', caValidityHours: -1, adminValidityHours: 100, adminEarlyRenewalHours: 100 }));
    expect(message).toContain('caValidityHours: expected a whole number from 1 to 876000, found number -1');
    expect(message).toContain('adminEarlyRenewalHours: expected a whole number from 0 to 99, found number 100');
  });

  test('without a TLS provider, synthesis names the provider, who needs it and how to add it', () => {
    const app = new App({ outdir: Testing.app().outdir });
    const s = new TerraformStack(app, 'no-tls');
    new ClusterPki(s, 'Pki', { caCommonName: 'x' });
    expect(errorOf(() => app.synth())).toContain(`ClusterPki need(s) the tls provider in stack "no-tls": add new TlsProvider(stack, 'Tls') (import it from 'capi-openstack-cdktf')`);
  });
});

describe('ReadinessGate', () => {
  test('a server that is no URL and 0 minutes are refused', () => {
    const message = errorOf(() => new ReadinessGate(stack(), 'Ready', { ...GATE, server: 'not a url', timeoutMinutes: 0 }));
    expect(message).toContain('server: expected an http(s) URL such as https://203.0.113.10:6443, found "not a url"');
    expect(message).toContain('timeoutMinutes: expected a whole number from 1 to 1440, found number 0');
  });

  test('a long value is cut in the message', () => {
    expect(errorOf(() => new ReadinessGate(stack(), 'Ready', { ...GATE, server: 'x'.repeat(5000) }))).toContain('(5000 characters)');
  });
});

describe('references every construct needs', () => {
  const missing = <T>(props: T, field: keyof T) => ({ ...props, [field]: undefined }) as unknown as T;

  test('ApplicationCredential without a name', () => {
    expect(errorOf(() => new ApplicationCredential(stack(), 'Credential', missing({ name: 'x' }, 'name')))).toContain('name: expected a value, found nothing');
  });

  test('ManagementEndpoint without its network and subnet', () => {
    const props = { name: 'x', networkId: 'n', subnetId: 's', securityGroupIds: [], externalNetworkName: 'public' };
    const message = errorOf(() => new ManagementEndpoint(stack(), 'Endpoint', missing(missing(props, 'networkId'), 'subnetId')));
    expect(message).toContain('networkId: expected a value, found nothing');
    expect(message).toContain('subnetId: expected a value, found nothing');
  });

  test('WorkloadCloudResources with a negative credential expiry', () => {
    const s = stack();
    new TimeProvider(s, 'Time');
    const props = { namePrefix: 'capi-x-a', externalNetworkName: 'public', controlPlaneAntiAffinity: 'hard' as const, nodeGroupAntiAffinity: {}, credentialExpiresInDays: -1 };
    expect(errorOf(() => new WorkloadCloudResources(s, 'Cloud', props))).toContain('credentialExpiresInDays: expected a whole number from 0 to 3650, found number -1');
  });

  test('KubeManifests without objects', () => {
    expect(errorOf(() => new KubeManifests(stack(), 'Objects', missing({ objects: [] }, 'objects')))).toContain('objects: expected a value, found nothing');
  });
});

