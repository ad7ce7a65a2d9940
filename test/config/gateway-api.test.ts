import { gatewayImplementation, parseEnvironment } from '../../lib/config';
import { withDeployAccess } from '../support/deploy-access';
import { refusalOf } from '../support/refusal';

const FILE = 'environments/t.yaml';
const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
const parse = (text: string) => parseEnvironment(withDeployAccess(text), FILE);
const errorOf = (text: string) => refusalOf(() => parse(text));

describe('addons.gatewayApi: the implementation', () => {
  test('gatewayApi.implementation: unset, Cilium\'s gateway with Cilium (as before the choice) and Traefik with Calico; traefikVersion only with Traefik', () => {
    const at = (addons: string) => parse(`${base}clusters:\n  a:\n    addons: ${addons}\n`).clusters[0].spec.addons;
    const calico = at('{ cni: { type: calico }, gatewayApi: { enabled: true, crds: false, traefikVersion: 41.6.0 } }');
    expect(gatewayImplementation(calico)).toBe('traefik');
    expect(calico.gatewayApi).toMatchObject({ enabled: true, crds: false, traefikVersion: '41.6.0' });
    expect(gatewayImplementation(at('{ gatewayApi: { enabled: true, crds: false } }'))).toBe('cilium');
    expect(gatewayImplementation(at('{ gatewayApi: { enabled: true, crds: false, implementation: traefik } }'))).toBe('traefik');
    expect(errorOf(`${base}clusters:\n  a:\n    addons: { gatewayApi: { enabled: true, crds: false, traefikVersion: 41.6.0 } }\n`).message).toContain(
      'clusters.a.addons.gatewayApi.traefikVersion: expected traefikVersion only with implementation traefik, found implementation cilium',
    );
  });
});
