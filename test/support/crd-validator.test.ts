import * as fs from 'fs';
import * as path from 'path';
import {
  assertValidAgainstCrd,
  CRD_SCHEMA_DIR,
  findCrd,
  KubernetesObject,
  loadCrds,
  validateAgainstCrd,
} from './crd-validator';

function minimalCluster(): KubernetesObject {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'demo', namespace: 'demo', labels: { 'cluster.x-k8s.io/cluster-name': 'demo' } },
    spec: {
      clusterNetwork: {
        pods: { cidrBlocks: ['192.168.0.0/16'] },
        services: { cidrBlocks: ['10.96.0.0/12'] },
      },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'demo-control-plane' },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'OpenStackCluster', name: 'demo' },
    },
  };
}

function minimalOpenStackCluster(): KubernetesObject {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'OpenStackCluster',
    metadata: { name: 'demo', namespace: 'demo' },
    spec: {
      identityRef: { cloudName: 'openstack', name: 'demo-cloud-config' },
      managedSubnets: [{ cidr: '10.8.0.0/20', dnsNameservers: ['5.1.66.255'] }],
      externalNetwork: { id: '6f6c8d5c-5c8a-4b36-9b3c-2b1b3f0e0f51' },
      apiServerLoadBalancer: { enabled: true, allowedCIDRs: ['0.0.0.0/0'] },
      managedSecurityGroups: { allowAllInClusterTraffic: true },
    },
  };
}

function minimalHelmChartProxy(): KubernetesObject {
  return {
    apiVersion: 'addons.cluster.x-k8s.io/v1alpha1',
    kind: 'HelmChartProxy',
    metadata: { name: 'cilium', namespace: 'demo' },
    spec: {
      clusterSelector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'demo' } },
      repoURL: 'https://helm.cilium.io/',
      chartName: 'cilium',
      version: '1.18.0',
      namespace: 'kube-system',
      valuesTemplate: 'mtu: 1400\n',
      options: { wait: true, timeout: '10m', install: { createNamespace: false } },
    },
  };
}

describe('committed CRD schemas', () => {
  it('cover CAPI core, kubeadm, CAPO and CAAPH at the pinned versions', () => {
    const versions = JSON.parse(fs.readFileSync(path.join(CRD_SCHEMA_DIR, 'versions.json'), 'utf8'));
    expect(versions.clusterApi).toMatch(/^v1\.14\.\d+$/);
    expect(versions.clusterApiProviderOpenStack).toMatch(/^v0\.14\.\d+$/);
    expect(versions.clusterApiAddonProviderHelm).toMatch(/^v0\.\d+\.\d+$/);
    const kinds = [...loadCrds().keys()];
    for (const k of [
      'cluster.x-k8s.io/Cluster',
      'cluster.x-k8s.io/MachineDeployment',
      'cluster.x-k8s.io/MachineHealthCheck',
      'controlplane.cluster.x-k8s.io/KubeadmControlPlane',
      'bootstrap.cluster.x-k8s.io/KubeadmConfigTemplate',
      'infrastructure.cluster.x-k8s.io/OpenStackCluster',
      'infrastructure.cluster.x-k8s.io/OpenStackMachineTemplate',
      'addons.cluster.x-k8s.io/HelmChartProxy',
    ]) {
      expect(kinds).toContain(k);
    }
    expect(kinds).toHaveLength(versions.crds.length);
    expect(findCrd('cluster.x-k8s.io/v1beta2', 'Cluster')?.version.storage).toBe(true);
  });

  it('carry no descriptions (kept small) but keep fields named "description"', () => {
    const text = fs.readFileSync(path.join(CRD_SCHEMA_DIR, 'addons.cluster.x-k8s.io_helmchartproxies.json'), 'utf8');
    const crd = JSON.parse(text);
    const v = crd.versions[0].openAPIV3Schema;
    expect(v.description).toBeUndefined();
    expect(v.properties.spec.description).toBeUndefined();
    expect(v.properties.spec.properties.options.properties.uninstall.properties.description).toEqual({ type: 'string' });
  });

  it('every served version compiles', () => {
    for (const crd of loadCrds().values()) {
      for (const v of crd.versions) {
        const errors = validateAgainstCrd({ apiVersion: `${crd.group}/${v.name}`, kind: crd.kind, metadata: { name: 'x' } });
        // Only field errors are expected (e.g. a required spec), never a compile failure.
        for (const e of errors) expect(e).toMatch(/^[a-zA-Z<]/);
        expect(errors.join('\n')).not.toMatch(/cannot compile/);
      }
    }
  });
});

describe('validateAgainstCrd', () => {
  it('accepts a minimal valid Cluster (cluster.x-k8s.io/v1beta2)', () => {
    expect(validateAgainstCrd(minimalCluster())).toEqual([]);
    expect(() => assertValidAgainstCrd(minimalCluster())).not.toThrow();
  });

  it('accepts a minimal valid OpenStackCluster (infrastructure.cluster.x-k8s.io/v1beta1)', () => {
    expect(validateAgainstCrd(minimalOpenStackCluster())).toEqual([]);
  });

  it('accepts a minimal valid HelmChartProxy (addons.cluster.x-k8s.io/v1alpha1)', () => {
    expect(validateAgainstCrd(minimalHelmChartProxy())).toEqual([]);
  });

  it('reports an unknown field', () => {
    const c = minimalCluster() as any;
    c.spec.clusterNetwork.podz = { cidrBlocks: ['10.0.0.0/8'] };
    c.spec.topologie = {};
    expect(validateAgainstCrd(c)).toEqual(
      expect.arrayContaining(['spec.clusterNetwork.podz: unknown field', 'spec.topologie: unknown field']),
    );
    expect(validateAgainstCrd(c)).toHaveLength(2);
  });

  it('reports an unknown top-level and metadata field', () => {
    const c = minimalCluster() as any;
    c.specs = {};
    c.metadata.label = {};
    expect(validateAgainstCrd(c).sort()).toEqual(['metadata.label: unknown field', 'specs: unknown field']);
  });

  it('reports a wrong type', () => {
    const c = minimalCluster() as any;
    c.spec.paused = 'true';
    c.spec.clusterNetwork.apiServerPort = '6443';
    expect(validateAgainstCrd(c).sort()).toEqual([
      'spec.clusterNetwork.apiServerPort: must be integer (got string "6443")',
      'spec.paused: must be boolean (got string "true")',
    ]);
  });

  it('reports a missing required field', () => {
    const c = minimalCluster() as any;
    delete c.spec.infrastructureRef.apiGroup;
    delete c.spec.clusterNetwork.pods.cidrBlocks;
    expect(validateAgainstCrd(c).sort()).toEqual([
      'spec.clusterNetwork.pods.cidrBlocks: Required value',
      'spec.infrastructureRef.apiGroup: Required value',
    ]);
    expect(() => assertValidAgainstCrd(c)).toThrow(/Cluster demo is not valid for its CRD:\n {2}spec\./);
  });

  it('reports a missing required field in OpenStackCluster and HelmChartProxy', () => {
    const o = minimalOpenStackCluster() as any;
    delete o.spec.identityRef;
    expect(validateAgainstCrd(o)).toEqual(['spec.identityRef: Required value']);
    const h = minimalHelmChartProxy() as any;
    delete h.spec.repoURL;
    expect(validateAgainstCrd(h)).toEqual(['spec.repoURL: Required value']);
  });

  it('checks enums, patterns, bounds and formats', () => {
    const c = minimalCluster() as any;
    c.spec.infrastructureRef.kind = '1-bad-kind';
    c.spec.clusterNetwork.apiServerPort = 70000;
    expect(validateAgainstCrd(c).sort()).toEqual([
      'spec.clusterNetwork.apiServerPort: must be <= 65535',
      expect.stringMatching(/^spec\.infrastructureRef\.kind: must match .* \(got string "1-bad-kind"\)$/),
    ]);
    const o = minimalOpenStackCluster() as any;
    o.spec.externalNetwork.id = 'not-a-uuid';
    expect(validateAgainstCrd(o)).toEqual(['spec.externalNetwork.id: must be a valid uuid (got string "not-a-uuid")']);
    const h = minimalHelmChartProxy() as any;
    h.spec.reconcileStrategy = 'Sometimes';
    expect(validateAgainstCrd(h)).toEqual([expect.stringMatching(/^spec\.reconcileStrategy: Unsupported value "Sometimes": must be one of "", "InstallOnce", "Continuous"$/)]);
  });

  it('checks x-kubernetes-int-or-string and preserve-unknown-fields', () => {
    const mhc: KubernetesObject = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineHealthCheck',
      metadata: { name: 'demo-workers', namespace: 'demo' },
      spec: {
        clusterName: 'demo',
        selector: { matchLabels: { 'cluster.x-k8s.io/deployment-name': 'demo-md-0' } },
        remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } },
      },
    };
    expect(validateAgainstCrd(mhc)).toEqual([]);
    (mhc.spec as any).remediation.triggerIf.unhealthyLessThanOrEqualTo = 3;
    expect(validateAgainstCrd(mhc)).toEqual([]);
    (mhc.spec as any).remediation.triggerIf.unhealthyLessThanOrEqualTo = true;
    expect(validateAgainstCrd(mhc)).toEqual([
      'spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: must be an integer or a string (got boolean)',
    ]);
  });

  it('reports duplicate keys in x-kubernetes-list-type=map lists', () => {
    const c = minimalCluster() as any;
    c.spec.availabilityGates = [{ conditionType: 'A' }, { conditionType: 'B' }];
    expect(validateAgainstCrd(c)).toEqual([]);
    c.spec.availabilityGates.push({ conditionType: 'A' });
    expect(validateAgainstCrd(c)).toEqual(['spec.availabilityGates[2]: duplicate entry: same conditionType ["A"] as item 0']);
  });

  it('reports null for a field that is not nullable', () => {
    const c = minimalCluster() as any;
    c.spec.paused = null;
    expect(validateAgainstCrd(c)).toEqual(['spec.paused: must be boolean (got null)']);
  });

  it('checks metadata names and labels like the API server', () => {
    const c = minimalCluster() as any;
    c.metadata.name = 'Demo_Cluster';
    c.metadata.labels['bad key!'] = 'x';
    const errors = validateAgainstCrd(c);
    expect(errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^metadata\.name: must match/), expect.stringMatching(/^metadata\.labels/)]),
    );
    const unnamed = minimalCluster() as any;
    delete unnamed.metadata.name;
    expect(validateAgainstCrd(unnamed)).toEqual(expect.arrayContaining(['metadata.name: Required value']));
  });

  it('reports unknown kinds and unserved versions', () => {
    expect(validateAgainstCrd({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Clustr', metadata: { name: 'x' } })[0]).toMatch(
      /^no CRD for kind Clustr in group "cluster.x-k8s.io" .*known: .*Cluster/,
    );
    expect(validateAgainstCrd({ apiVersion: 'cluster.x-k8s.io/v1alpha3', kind: 'Cluster', metadata: { name: 'x' } })).toEqual([
      'clusters.cluster.x-k8s.io does not serve version v1alpha3 (served: v1beta1, v1beta2)',
    ]);
    expect(validateAgainstCrd({ ...minimalCluster(), apiVersion: 'cluster.x-k8s.io/v1beta1' }).length).toBeGreaterThan(0);
  });
});
