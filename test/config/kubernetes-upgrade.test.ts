import { kubernetesUpgradeStep, minorPath } from '../../lib/config/kubernetes-upgrade';
import { DEFAULT_KUBERNETES_VERSION, resolveKubernetesVersion } from '../../lib/config/versions';

describe('Kubernetes upgrade steps of a running cluster', () => {
  test.each([
    [undefined, 'v1.36.3', 'none'],
    ['v1.36.3', 'v1.36.3', 'none'],
    ['v1.36.1', 'v1.36.3', 'patch'],
    ['v1.35.10', 'v1.36.3', 'minor'],
    ['v1.36.3', 'v1.37.2', 'minor'],
  ])('%s → %s is %s', (deployed, target, kind) => {
    expect(kubernetesUpgradeStep(deployed, target).kind).toBe(kind);
  });

  test('a cluster deployed at the earlier tested patch v1.36.3 that pins no patch (v1.36.x, the default) moves to v1.36.5 as a patch step', () => {
    // what operators get from this release without editing their environment: every machine rolls
    const target = resolveKubernetesVersion(DEFAULT_KUBERNETES_VERSION);
    expect([DEFAULT_KUBERNETES_VERSION, target]).toEqual(['v1.36.x', 'v1.36.5']);
    expect(kubernetesUpgradeStep('v1.36.3', target!)).toEqual({ kind: 'patch' });
  });

  test('a jump of minors is refused with the path to take', () => {
    expect(kubernetesUpgradeStep('v1.35.10', 'v1.37.2')).toEqual({
      kind: 'refused',
      message: 'Kubernetes v1.35.10 → v1.37.2 skips minors; upgrade one minor at a time: v1.36.x, then v1.37.x',
    });
    expect(minorPath('v1.33', 'v1.36')).toEqual(['v1.34', 'v1.35', 'v1.36']);
  });

  test('a downgrade, of a minor or a patch, is refused', () => {
    expect(kubernetesUpgradeStep('v1.37.2', 'v1.36.3')).toEqual({
      kind: 'refused',
      message: 'Kubernetes v1.37.2 → v1.36.3 is a downgrade, which kubeadm does not support; keep v1.37.2 (or a newer version) in kubernetesVersion',
    });
    expect(kubernetesUpgradeStep('v1.36.3', 'v1.36.1').kind).toBe('refused');
  });

  test('what is not an exact version is refused, not guessed', () => {
    expect(kubernetesUpgradeStep('v1.36.x', 'v1.36.3')).toEqual({ kind: 'refused', message: 'expected exact versions like v1.36.3, found "v1.36.x" → "v1.36.3"' });
  });
});
