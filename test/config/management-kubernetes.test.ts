/** The management cluster's Kubernetes (the kind node image's tag) against Cluster API's management range. */
import { parseEnvironment } from '../../lib/config';
import { managementKubernetesWarning, nodeImageKubernetesVersion } from '../../lib/config/management-kubernetes';
import { KIND_NODE_IMAGE } from '../../lib/config/downloads';
import { withDeployAccess } from '../support/deploy-access';

const FILE = 'environments/lab.yaml';
const DIGEST = `@sha256:${'a'.repeat(64)}`;
const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
const kubernetesWarnings = (extra: string) =>
  parseEnvironment(withDeployAccess(`${base}${extra}`), FILE).warnings.filter((w) => /kind node image/.test(w.message)).map((w) => [w.path, w.line, w.message]);

describe('the kind node image\'s Kubernetes version', () => {
  test.each([
    [KIND_NODE_IMAGE, 'v1.36.1'],
    [`registry.example:5000/local-vm/kind-node:v1.36.3-0f1e2d${DIGEST}`, 'v1.36.3'],
    [`kindest/node:latest${DIGEST}`, undefined],
    [`kindest/node:v1.36${DIGEST}`, undefined],
  ])('%s → %s', (image, version) => {
    expect(nodeImageKubernetesVersion(image)).toBe(version);
  });

  test('inside the range of the pinned Cluster API (and of every supported one): no warning', () => {
    for (const capi of ['v1.12.10', 'v1.13.6', 'v1.14.2']) expect(managementKubernetesWarning(KIND_NODE_IMAGE, capi)).toBeUndefined();
    expect(kubernetesWarnings('')).toEqual([]);
  });

  test('a node image newer or older than the management range warns on its own line, naming the range', () => {
    expect(kubernetesWarnings(`management:\n  tools:\n    kindNodeImage: kindest/node:v1.37.2${DIGEST}\n`)).toEqual([
      ['management.tools.kindNodeImage', 7, 'the kind node image runs Kubernetes v1.37.2, outside the management range of Cluster API v1.14 (v1.33.x to v1.36.x): clusterctl init installs onto a cluster this release is not tested on; pick a node image of v1.33.x to v1.36.x or another versions.clusterApi'],
    ]);
    expect(managementKubernetesWarning(`kindest/node:v1.32.5${DIGEST}`, 'v1.14.2')).toMatch(/Kubernetes v1\.32\.5, outside the management range of Cluster API v1\.14 \(v1\.33\.x to v1\.36\.x\)/);
    expect(managementKubernetesWarning(`kindest/node:v1.32.5${DIGEST}`, 'v1.13.6')).toBeUndefined();
  });

  test('the default node image under a Cluster API patch that does not manage its minor yet: the warning names versions.clusterApi', () => {
    const [warning] = kubernetesWarnings('versions:\n  clusterApi: v1.12.4\n');
    expect(warning.slice(0, 2)).toEqual(['versions.clusterApi', 5]);
    expect(warning[2]).toBe('the kind node image runs Kubernetes v1.36.1, which Cluster API v1.12 manages from v1.12.8 on (versions.clusterApi is v1.12.4)');
  });

  test('an image whose tag names no version is not judged', () => {
    expect(kubernetesWarnings(`management:\n  tools:\n    kindNodeImage: registry.example/node:stable${DIGEST}\n`)).toEqual([]);
  });
});
