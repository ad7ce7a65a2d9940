import { compareVersions, InstalledProvider, planUpgrade } from '../../../lib/runtime/management/upgrade-plan';

const inventory = (capi = 'v1.12.10', capo = 'v0.14.7', caaph = 'v0.6.4'): InstalledProvider[] => [
  { namespace: 'capi-system', providerName: 'cluster-api', type: 'CoreProvider', version: capi },
  { namespace: 'capi-kubeadm-bootstrap-system', providerName: 'kubeadm', type: 'BootstrapProvider', version: capi },
  { namespace: 'capi-kubeadm-control-plane-system', providerName: 'kubeadm', type: 'ControlPlaneProvider', version: capi },
  { namespace: 'capo-system', providerName: 'openstack', type: 'InfrastructureProvider', version: capo },
  { namespace: 'caaph-system', providerName: 'helm', type: 'AddonProvider', version: caaph },
];

describe('which providers an upgrade moves', () => {
  test('nothing when the inventory already has the versions', () => {
    expect(planUpgrade(inventory(), { clusterApi: 'v1.12.10', capo: 'v0.14.7', caaph: 'v0.6.4' })).toEqual({ items: [], problems: [] });
  });

  test('a Cluster API change moves core and both kubeadm providers, and only them, each in its namespace', () => {
    const plan = planUpgrade(inventory(), { clusterApi: 'v1.13.6', capo: 'v0.14.7', caaph: 'v0.6.4' });
    expect(plan.problems).toEqual([]);
    expect(plan.items.map((i) => `${i.flag} ${i.item}`)).toEqual([
      '--core capi-system/cluster-api:v1.13.6',
      '--bootstrap capi-kubeadm-bootstrap-system/kubeadm:v1.13.6',
      '--control-plane capi-kubeadm-control-plane-system/kubeadm:v1.13.6',
    ]);
    expect(plan.items[0].label).toBe('cluster-api v1.12.10 → v1.13.6');
  });

  test('a downgrade is refused, naming the provider and the way back', () => {
    const plan = planUpgrade(inventory('v1.12.10', 'v0.14.7'), { clusterApi: 'v1.12.10', capo: 'v0.14.6', caaph: 'v0.6.4' });
    expect(plan.items).toEqual([]);
    expect(plan.problems).toEqual(['infrastructure-openstack runs v0.14.7, newer than versions.capo v0.14.6: controllers cannot be downgraded (restore a backup into a management cluster of v0.14.6 instead)']);
  });

  test('a missing provider (clusterctl init incomplete, or no clusterctl at all) is refused', () => {
    const plan = planUpgrade(inventory().filter((p) => p.providerName !== 'helm'), { clusterApi: 'v1.13.6', capo: 'v0.14.7', caaph: 'v0.6.4' });
    expect(plan.problems).toEqual(["addon-helm: expected one installed provider in clusterctl's inventory, found 0 (was clusterctl init complete on this management cluster?)"]);
    expect(planUpgrade([], { clusterApi: 'v1.13.6', capo: 'v0.14.7', caaph: 'v0.6.4' }).problems).toHaveLength(5);
  });

  test('versions compare by number, not as text', () => {
    expect(compareVersions('v1.9.0', 'v1.10.0')).toBe(-1);
    expect(compareVersions('v1.12.10', 'v1.12.9')).toBe(1);
    expect(compareVersions('v1.12.10', 'v1.12.10')).toBe(0);
    expect(compareVersions('main', 'v1.12.10')).toBeUndefined();
  });
});
