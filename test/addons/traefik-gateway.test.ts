import { parse } from 'yaml';
import { TRAEFIK_GATEWAY_NAME, TRAEFIK_WEB_PORT, buildAddonObjects } from '../../lib/addons';
import { KubeObject } from '../../lib/capi';
import { EnvironmentConfig } from '../../lib/config';
import { clusterOf, makeEnv } from '../capi/fixtures';

function proxies(e: EnvironmentConfig, name: string): Record<string, any> {
  const objs: KubeObject[] = buildAddonObjects({ env: e, cluster: clusterOf(e, name) });
  return Object.fromEntries(objs.filter((o) => o.kind === 'HelmChartProxy').map((o) => [o.metadata.labels!['capi-openstack-cdktf/addon'], o]));
}
function values(hcp: any): any {
  return hcp.spec.valuesTemplate ? parse(hcp.spec.valuesTemplate) : {};
}

describe('Traefik as the Gateway API implementation', () => {
  test('gatewayApi with Traefik (any CNI): its chart from the catalogue, Gateway API only (no Ingress provider, no IngressClass), one Gateway for every namespace; Cilium\'s gateway stays off', () => {
    for (const cni of ['calico', 'cilium']) {
      const e = makeEnv(`clusters:\n  c:\n    addons: { cni: { type: ${cni} }, gatewayApi: { enabled: true, crds: false, implementation: traefik } }\n`);
      const p = proxies(e, 'c');
      expect(p.traefik.metadata.name).toBe('c-traefik');
      expect(p.traefik.spec).toMatchObject({ repoURL: 'https://traefik.github.io/charts', chartName: 'traefik', version: '41.6.0', releaseName: 'traefik', namespace: 'traefik' });
      expect(values(p.traefik)).toEqual({
        global: { checkNewVersion: false, sendAnonymousUsage: false },
        providers: { kubernetesGateway: { enabled: true }, kubernetesIngress: { enabled: false }, kubernetesCRD: { enabled: false } },
        ingressClass: { enabled: false },
        gatewayClass: { enabled: true },
        gateway: { enabled: true, name: TRAEFIK_GATEWAY_NAME, listeners: { web: { port: TRAEFIK_WEB_PORT, protocol: 'HTTP', namespacePolicy: { from: 'All' } } } },
      });
      expect(Object.keys(p)).not.toContain('gateway-api-crds');
      if (cni === 'cilium') expect(values(p.cilium).gatewayAPI).toBeUndefined();
    }
    const pinned = makeEnv('clusters:\n  c:\n    addons: { cni: { type: calico }, gatewayApi: { enabled: true, crds: false, traefikVersion: 41.5.0 } }\n');
    expect(proxies(pinned, 'c').traefik.spec.version).toBe('41.5.0');
    expect(Object.keys(proxies(makeEnv('clusters:\n  c: {}\n'), 'c'))).not.toContain('traefik');
  });
});
