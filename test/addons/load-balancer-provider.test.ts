/**
 * clusters.<name>.loadBalancerProvider: the Octavia provider OCCM asks for when it makes a Service's
 * load balancer. Without one OCCM asks for its own default, amphora, which a cloud without an
 * amphora provider refuses (the local cloud has only its no-op `localcloud`).
 */
import { parse } from 'yaml';
import { CLOUD_CONFIG_RESOURCE_KEY, buildAddonObjects, buildCloudConfigSecret, resolveOvn } from '../../lib/addons';
import { EnvironmentConfig } from '../../lib/config';
import { EXTERNAL_NETWORK_ID, clusterOf, makeEnv } from '../capi/fixtures';

const CREDENTIAL = { authUrl: 'https://keystone.example.test:5000/v3', applicationCredentialId: 'id', applicationCredentialSecret: 'secret' };

function stringData(e: EnvironmentConfig): Record<string, string> {
  const outer: any = buildCloudConfigSecret({ env: e, cluster: clusterOf(e, 'c'), credential: CREDENTIAL, externalNetworkId: EXTERNAL_NETWORK_ID });
  return parse(outer.stringData[CLOUD_CONFIG_RESOURCE_KEY]).stringData;
}

function ingressNginxValues(e: EnvironmentConfig): any {
  const hcp: any = buildAddonObjects({ env: e, cluster: clusterOf(e, 'c') }).find((o) => o.kind === 'HelmChartProxy' && o.metadata.labels!['capi-openstack-cdktf/addon'] === 'ingress-nginx');
  return parse(hcp.spec.valuesTemplate);
}

test('a named provider is cloud.conf\'s lb-provider for OCCM only; without one, cloud.conf leaves OCCM its default', () => {
  const named = stringData(makeEnv('clusters:\n  c: { loadBalancerProvider: localcloud }\n'));
  expect(named['cloud.conf']).toContain(`[LoadBalancer]\nfloating-network-id="${EXTERNAL_NETWORK_ID}"\ncreate-monitor="true"\nlb-provider="localcloud"\n`);
  expect(named['cloud.conf']).not.toContain('lb-method');
  expect(named['cloud-csi.conf']).not.toContain('lb-provider');
  expect(stringData(makeEnv('clusters:\n  c: {}\n'))['cloud.conf']).not.toContain('lb-provider');
});

test('ovn means ovnLoadBalancer: the OVN settings of cloud.conf and ingress-nginx without PROXY protocol', () => {
  const ovn = makeEnv('clusters:\n  c: { loadBalancerProvider: ovn }\n');
  expect(resolveOvn(clusterOf(ovn, 'c'))).toBe(true);
  expect(stringData(ovn)['cloud.conf']).toContain('lb-provider="ovn"\nlb-method="SOURCE_IP_PORT"\nmanage-security-groups="true"');
  expect(ingressNginxValues(ovn).controller.config).toBeUndefined();
  expect(ingressNginxValues(makeEnv('clusters:\n  c: { loadBalancerProvider: localcloud }\n')).controller.config).toEqual(expect.objectContaining({ 'use-proxy-protocol': 'true' }));
});
