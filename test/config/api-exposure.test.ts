/** Who may reach the Kubernetes APIs: open workload APIs are warned about, a closed management API with the wait on is refused. */
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { apiAllowedCidrs } from '../../lib/capi/openstack-cluster';
import { coversEveryAddress } from '../../lib/config/api-exposure';
import { inputsFor, makeEnv } from '../capi/fixtures';
import { withDeployAccess } from '../support/deploy-access';
import { existingKubeconfig } from '../support/kubeconfig-fixture';

const FILE = 'environments/lab.yaml';
const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';

/** The warnings about API exposure (the shared-project one, management-project.test.ts, the unpinned-manifests one, provider-manifests.test.ts, and ingress-nginx's, feature-flags.test.ts, left out). */
const exposureWarnings = (env: { readonly warnings: readonly { readonly path: string; readonly line?: number; readonly message: string }[] }) =>
  env.warnings.filter((w) => w.path !== 'management.cloud' && w.path !== 'management.providerManifests' && !w.path.endsWith('.addons.ingressNginx'));

function errorOf(text: string): string {
  try {
    parseEnvironment(text, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(EnvironmentConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the environment to be rejected');
}

describe('workload API exposure', () => {
  const text = withDeployAccess(`${base}clusters:\n  a: {}\n  b:\n    apiAllowedCidrs: []\n  c:\n    apiAllowedCidrs: [0.0.0.0/0]\n  d:\n    apiAllowedCidrs: [192.0.2.0/24]\n  e:\n    apiAllowedCidrs: [none]\n`);

  test('one warning per cluster whose API is open by default (missing or empty list), on its line', () => {
    const env = parseEnvironment(text, FILE);
    expect(exposureWarnings(env).map((w) => [w.path, w.line])).toEqual([
      ['clusters.a.apiAllowedCidrs', 5],
      ['clusters.b.apiAllowedCidrs', 7],
    ]);
    expect(exposureWarnings(env)[0].message).toBe(
      'the Kubernetes API of cluster "a" is reachable from anywhere (the default); list the networks that need it, ["none"] for internal only, or ["0.0.0.0/0"] to keep it open and silence this warning',
    );
  });

  test('["0.0.0.0/0"] says "open" on purpose: no warning, and the same objects as the default', () => {
    const env = makeEnv(`clusters:\n  open:\n    apiAllowedCidrs: [0.0.0.0/0]\n  default: {}\n`);
    expect(exposureWarnings(env).map((w) => w.path)).toEqual(['clusters.default.apiAllowedCidrs']);
    expect(apiAllowedCidrs(inputsFor(env, 'open'))).toBeUndefined();
    expect(apiAllowedCidrs(inputsFor(env, 'default'))).toBeUndefined();
  });

  test('0.0.0.0/0 must stand alone; an open API needs no egressCidr of an existing management cluster', () => {
    expect(errorOf(withDeployAccess(`${base}clusters:\n  a:\n    apiAllowedCidrs: [0.0.0.0/0, 192.0.2.0/24]\n`))).toContain(
      'lab.yaml:6:22: clusters.a.apiAllowedCidrs: expected ["0.0.0.0/0"] alone (open to everyone) or a list that leaves it out, found ["0.0.0.0/0","192.0.2.0/24"]',
    );
    const byo = `${base}existingManagementCluster: { kubeconfigFile: ${existingKubeconfig()} }\nclusters:\n  a:\n    apiAllowedCidrs: `;
    expect(exposureWarnings(parseEnvironment(`${byo}[0.0.0.0/0]\n`, FILE))).toEqual([]);
    expect(errorOf(`${byo}[192.0.2.0/24]\n`)).toContain('expected existingManagementCluster.egressCidr to be set when the API is restricted');
  });
});

describe('management API and the readiness wait', () => {
  test('closed (the default) with the wait on (the default) fails at synth, saying what to set', () => {
    expect(errorOf(base)).toBe(
      'Invalid environment file environments/lab.yaml (1 problem):\n' +
        '  environments/lab.yaml:1:1: management.apiAllowedCidrs: expected the networks of the machines that run cdktf deploy (the readiness wait and the workload stacks reach the management API from there), found none (the API is closed by default); list them, or set management.waitForReady: false to deploy the VM without waiting',
    );
    expect(errorOf(`${base}management:\n  apiAllowedCidrs: []\n`)).toContain('lab.yaml:5:20: management.apiAllowedCidrs: expected the networks');
  });

  test('a listed network, the wait turned off, or an existing management cluster are fine', () => {
    expect(parseEnvironment(`${base}management:\n  apiAllowedCidrs: [198.51.100.0/24]\n`, FILE).spec.management.waitForReady).toBe(true);
    expect(parseEnvironment(`${base}management:\n  waitForReady: false\n`, FILE).spec.management.apiAllowedCidrs).toEqual([]);
    expect(parseEnvironment(`${base}existingManagementCluster: { kubeconfigFile: ${existingKubeconfig()} }\n`, FILE).clusters).toEqual([]);
  });
});

describe('lists that add up to every address', () => {
  test.each([
    [['0.0.0.0/0'], true],
    [['0.0.0.0/1', '128.0.0.0/1'], true],
    [['128.0.0.0/1', '0.0.0.0/2', '64.0.0.0/2'], true],
    [['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/2', '10.0.0.0/8'], true],
    [['0.0.0.0/1', '128.0.0.0/2', '224.0.0.0/3'], false],
    [['0.0.0.0/1'], false],
    [['none'], false],
    [[], false],
  ])('%j covers every address: %s', (cidrs, expected) => {
    expect(coversEveryAddress(cidrs)).toBe(expected);
  });

  test('a workload API list that covers everything without saying 0.0.0.0/0 is refused', () => {
    expect(errorOf(withDeployAccess(`${base}clusters:\n  a:\n    apiAllowedCidrs: [0.0.0.0/1, 128.0.0.0/1]\n`))).toContain(
      'lab.yaml:6:22: clusters.a.apiAllowedCidrs: expected ["0.0.0.0/0"] to open the API to everyone on purpose, or networks that leave addresses out, found ["0.0.0.0/1","128.0.0.0/1"], which together cover every address',
    );
  });

  test('a management API or SSH open to every address is warned about on its line, pieces included', () => {
    const env = parseEnvironment(`${base}management:\n  apiAllowedCidrs: [0.0.0.0/0]\n  sshAllowedCidrs: [0.0.0.0/1, 128.0.0.0/1]\n`, FILE);
    expect(exposureWarnings(env).map((w) => [w.path, w.line])).toEqual([
      ['management.apiAllowedCidrs', 5],
      ['management.sshAllowedCidrs', 6],
    ]);
    expect(exposureWarnings(env)[0].message).toBe(
      '["0.0.0.0/0"] covers every address: the management cluster\'s Kubernetes API (it holds every workload cluster\'s credentials) is reachable from anywhere; list only the networks that need it (the machines that run cdktf deploy)',
    );
    expect(exposureWarnings(env)[1].message).toContain('SSH to the management VM is reachable from anywhere');
    expect(exposureWarnings(parseEnvironment(`${base}management:\n  apiAllowedCidrs: [198.51.100.0/24]\n  sshAllowedCidrs: [0.0.0.0/1]\n`, FILE))).toEqual([]);
  });
});
