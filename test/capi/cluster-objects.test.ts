import {
  API,
  CLUSTER_NAME_LABEL,
  CLUSTER_SELECTOR_LABEL,
  INSTANCE_CREATE_TIMEOUT_ANNOTATION,
  MANAGED_BY_LABEL,
  WorkloadClusterInputs,
  buildClusterObjectSet,
  buildClusterObjects,
  contentHash,
  controllerInstanceCreateTimeoutMinutes,
  scsFlavorDiskGb,
  stableStringify,
} from '../../lib/capi';
import { validateAgainstCrd } from '../support/crd-validator';
import { CP_SERVER_GROUP_ID, EXTERNAL_NETWORK_ID, MD_SERVER_GROUP_ID, inputsFor, makeEnv } from './fixtures';
import { env, one } from './object-queries';

describe('CRD validity', () => {
  test.each(env.clusters.map((c) => c.name))('every object of cluster "%s" is valid for its CRD', (name) => {
    const objs = buildClusterObjects(inputsFor(env, name));
    expect(objs.length).toBeGreaterThanOrEqual(4);
    for (const o of objs) {
      expect({ object: `${o.kind}/${o.metadata.name}`, errors: validateAgainstCrd(o as any) }).toEqual({ object: `${o.kind}/${o.metadata.name}`, errors: [] });
    }
  });

  // found by the real API server (control-loop e2e): `files: []` breaks the CRD's minItems 1
  test('a node group with no node files (no proxy, no serving certificates, no metadata block) leaves `files` out', () => {
    const bare = makeEnv('clusters:\n  bare:\n    blockMetadataService: false\n    addons:\n      metricsServer: false\n');
    const template = one(buildClusterObjects(inputsFor(bare, 'bare')), 'KubeadmConfigTemplate');
    expect(template.spec.template.spec).not.toHaveProperty('files');
    expect(validateAgainstCrd(template)).toEqual([]);
    expect(validateAgainstCrd({ ...template, spec: { template: { spec: { ...template.spec.template.spec, files: [] } } } }).join('\n')).toMatch(/files/);
  });

  test('the validator is not vacuous: a v1beta1-style ref is refused', () => {
    const cluster = one(buildClusterObjects(inputsFor(env, 'defaults')), 'Cluster');
    const broken = { ...cluster, spec: { ...cluster.spec, controlPlaneRef: { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', name: 'x' } } };
    expect(validateAgainstCrd(broken).join('\n')).toMatch(/controlPlaneRef/);
  });

  test('objects come in apply order, Cluster last, one of each singleton kind', () => {
    const objs = buildClusterObjects(inputsFor(env, 'big'));
    expect(objs[objs.length - 1].kind).toBe('Cluster');
    expect(objs.map((o) => o.kind)).toEqual([
      'OpenStackCluster',
      'OpenStackMachineTemplate',
      'KubeadmControlPlane',
      'OpenStackMachineTemplate',
      'KubeadmConfigTemplate',
      'MachineDeployment',
      'OpenStackMachineTemplate',
      'KubeadmConfigTemplate',
      'MachineDeployment',
      'MachineHealthCheck',
      'MachineHealthCheck',
      'Cluster',
    ]);
  });

  test('objects share no nested values (independent copies, no YAML anchors)', () => {
    const objs = buildClusterObjects(inputsFor(env, 'big'));
    const { stringify } = require('yaml');
    expect(stringify(objs)).not.toMatch(/[&*]a\d+/);
  });
});

describe('labels and names', () => {
  test('every object carries the cluster-name and managed-by labels and lives in the cluster namespace', () => {
    const objs = buildClusterObjects(inputsFor(env, 'big'));
    for (const o of objs) {
      expect(o.metadata.labels?.[CLUSTER_NAME_LABEL]).toBe('big');
      expect(o.metadata.labels?.[MANAGED_BY_LABEL]).toBe('capi-openstack-cdktf');
      expect(o.metadata.namespace).toBe('capi-test-big');
    }
    expect(one(objs, 'Cluster').metadata.labels[CLUSTER_SELECTOR_LABEL]).toBe('big');
  });

  test('an explicit namespace is used; an over-long default is refused with a clear message', () => {
    expect(buildClusterObjects(inputsFor(env, 'defaults', { namespace: 'team-a' })).every((o) => o.metadata.namespace === 'team-a')).toBe(true);
    // Environment files are refused when loaded; the builder still guards library callers.
    expect(() => makeEnv(`prefix: p${'x'.repeat(19)}\nclusters:\n  ${'c'.repeat(32)}: {}\n`, 'a-long-environment-name1')).toThrow(/63-character Kubernetes namespace/);
    expect(() => buildClusterObjects(inputsFor(env, 'defaults', { namespace: `ns-${'n'.repeat(61)}` }))).toThrow(/at most 63 characters/);
  });

  test('templates are named <cluster>-<role>-<8 hex>, and the references point at them', () => {
    const set = buildClusterObjectSet(inputsFor(env, 'big'));
    expect(set.controlPlaneMachineTemplate.metadata.name).toMatch(/^big-control-plane-[0-9a-f]{8}$/);
    const md0 = set.nodeGroups['md-0'];
    expect(md0.machineTemplate.metadata.name).toMatch(/^big-md-0-[0-9a-f]{8}$/);
    expect(md0.bootstrapTemplate.metadata.name).toMatch(/^big-md-0-[0-9a-f]{8}$/);
    const md: any = md0.machineDeployment;
    expect(md.spec.template.spec.infrastructureRef).toEqual({ apiGroup: API.infrastructure.group, kind: 'OpenStackMachineTemplate', name: md0.machineTemplate.metadata.name });
    expect(md.spec.template.spec.bootstrap.configRef).toEqual({ apiGroup: API.bootstrap.group, kind: 'KubeadmConfigTemplate', name: md0.bootstrapTemplate.metadata.name });
    const kcp: any = set.controlPlane;
    expect(kcp.spec.machineTemplate.spec.infrastructureRef.name).toBe(set.controlPlaneMachineTemplate.metadata.name);
    const cluster: any = set.cluster;
    expect(cluster.spec.controlPlaneRef).toEqual({ apiGroup: API.controlPlane.group, kind: 'KubeadmControlPlane', name: 'big-control-plane' });
    expect(cluster.spec.infrastructureRef).toEqual({ apiGroup: API.infrastructure.group, kind: 'OpenStackCluster', name: 'big' });
  });
});

describe('content-addressed template names', () => {
  const base = `clusters:\n  c:\n    nodeGroups:\n      - { name: md-0, flavor: SCS-2V-4-20s, count: 3 }\n`;
  const names = (yaml: string, extra: Partial<WorkloadClusterInputs> = {}) => {
    const e = makeEnv(yaml);
    const set = buildClusterObjectSet(inputsFor(e, 'c', extra));
    return {
      cpOsmt: set.controlPlaneMachineTemplate.metadata.name,
      osmt: set.nodeGroups['md-0'].machineTemplate.metadata.name,
      kct: set.nodeGroups['md-0'].bootstrapTemplate.metadata.name,
      replicas: (set.nodeGroups['md-0'].machineDeployment as any).spec.replicas,
    };
  };
  const before = names(base);

  test('building twice gives the same names (deterministic)', () => {
    expect(names(base)).toEqual(before);
  });

  test('a flavor change renames the machine template only', () => {
    const after = names(base.replace('SCS-2V-4-20s', 'SCS-4V-8-20s'));
    expect(after.osmt).not.toBe(before.osmt);
    expect(after.kct).toBe(before.kct);
    expect(after.cpOsmt).toBe(before.cpOsmt);
  });

  test('an image change renames every machine template', () => {
    const after = names(base.replace('  c:\n', '  c:\n    nodeImage: my-image-2\n'));
    expect(after.osmt).not.toBe(before.osmt);
    expect(after.cpOsmt).not.toBe(before.cpOsmt);
    expect(after.kct).toBe(before.kct);
  });

  test('a node file change (proxy) renames the bootstrap template only', () => {
    const after = names(`proxy:\n  httpProxy: http://proxy.test:3128\n${base}`);
    expect(after.kct).not.toBe(before.kct);
    expect(after.osmt).toBe(before.osmt);
  });

  test('a count change keeps every name (scaling is in place)', () => {
    const after = names(base.replace('count: 3', 'count: 7'));
    expect(after).toEqual({ ...before, replicas: 7 });
  });

  test('apply-time values (floating IP, server group ids, tokens) do not change names', () => {
    const e = makeEnv(base);
    const a = buildClusterObjectSet(inputsFor(e, 'c'));
    const b = buildClusterObjectSet(
      inputsFor(e, 'c', {
        apiServerFloatingIp: '${TfToken[TOKEN.77]}',
        serverGroupIds: { controlPlane: '${TfToken[TOKEN.78]}', nodeGroups: { 'md-0': '${TfToken[TOKEN.79]}' } },
      }),
    );
    expect(b.controlPlaneMachineTemplate.metadata.name).toBe(a.controlPlaneMachineTemplate.metadata.name);
    expect(b.nodeGroups['md-0'].machineTemplate.metadata.name).toBe(a.nodeGroups['md-0'].machineTemplate.metadata.name);
    expect(b.nodeGroups['md-0'].bootstrapTemplate.metadata.name).toBe(a.nodeGroups['md-0'].bootstrapTemplate.metadata.name);
    // … but the values themselves are placed
    expect((b.nodeGroups['md-0'].machineTemplate as any).spec.template.spec.serverGroup).toEqual({ id: '${TfToken[TOKEN.79]}' });
  });

  test('stable JSON ignores key order; the hash is 8 hex characters', () => {
    expect(stableStringify({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(contentHash({ a: 1, b: 2 })).toBe(contentHash({ b: 2, a: 1 }));
    expect(contentHash({ a: 1 })).toMatch(/^[0-9a-f]{8}$/);
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});

describe('OpenStackCluster', () => {
  const osc = (name: string, extra: Partial<WorkloadClusterInputs> = {}) => one(buildClusterObjects(inputsFor(env, name, extra)), 'OpenStackCluster');

  test('credential, network, pinned floating IP, no bastion', () => {
    const o = osc('big');
    expect(o.spec.identityRef).toEqual({ type: 'Secret', name: 'big-cloud-config', cloudName: 'openstack', region: 'RegionOne' });
    expect(o.spec.externalNetwork).toEqual({ id: EXTERNAL_NETWORK_ID });
    expect(o.spec.managedSubnets).toEqual([{ cidr: '10.10.0.0/20', dnsNameservers: ['5.1.66.255', '185.150.99.255'] }]);
    expect(o.spec.apiServerFloatingIP).toBe('203.0.113.10');
    expect(o.spec.controlPlaneEndpoint).toEqual({ host: '203.0.113.10', port: 6443 });
    expect(o.spec.disableAPIServerFloatingIP).toBeUndefined();
    expect(o.spec.bastion).toBeUndefined();
    expect(o.spec.controlPlaneAvailabilityZones).toEqual(['az1', 'az2', 'az3']);
    expect(osc('defaults').spec.controlPlaneAvailabilityZones).toEqual(['az1']); // environment availabilityZone
    expect(osc('defaults', { cloudName: 'mycloud' }).spec.identityRef.cloudName).toBe('mycloud');
  });

  test('API allowed CIDRs: open, restricted (+ management), internal only (management only)', () => {
    expect(osc('defaults').spec.apiServerLoadBalancer).toEqual({ enabled: true });
    expect(osc('big').spec.apiServerLoadBalancer).toEqual({ enabled: true, allowedCIDRs: ['192.0.2.0/24', '198.51.100.7/32'] });
    expect(osc('calico').spec.apiServerLoadBalancer).toEqual({ enabled: true, allowedCIDRs: ['198.51.100.7/32'] });
  });

  test('security groups: all in-cluster traffic plus the rules of the chosen CNI', () => {
    const cilium = osc('defaults').spec.managedSecurityGroups;
    expect(cilium.allowAllInClusterTraffic).toBe(true);
    expect(cilium.allNodesSecurityGroupRules.map((r: any) => `${r.protocol}/${r.portRangeMin ?? '-'}`)).toEqual(['udp/8472', 'tcp/4240', 'tcp/4244']);
    const calico = osc('calico').spec.managedSecurityGroups.allNodesSecurityGroupRules;
    expect(calico.map((r: any) => `${r.protocol}/${r.portRangeMin ?? '-'}`)).toEqual(['tcp/179', '4/-', 'tcp/5473']);
    for (const r of calico) expect(r.remoteManagedGroups).toEqual(['controlplane', 'worker']);
  });

  test('instance create timeout: annotation per cluster, largest value for the CAPO controller', () => {
    const e = makeEnv('clusters:\n  a: { instanceCreateTimeoutMinutes: 12 }\n  b: {}\n');
    expect(one(buildClusterObjects(inputsFor(e, 'a')), 'OpenStackCluster').metadata.annotations[INSTANCE_CREATE_TIMEOUT_ANNOTATION]).toBe('12');
    expect(one(buildClusterObjects(inputsFor(e, 'b')), 'OpenStackCluster').metadata.annotations[INSTANCE_CREATE_TIMEOUT_ANNOTATION]).toBe('5');
    expect(controllerInstanceCreateTimeoutMinutes(e)).toBe(12);
    expect(controllerInstanceCreateTimeoutMinutes(makeEnv('clusters: {}\n'))).toBe(5);
  });
});

describe('machine templates', () => {
  test('flavor, image by name, metadata, server group, extra security groups, key pair', () => {
    const set = buildClusterObjectSet(inputsFor(env, 'big', { nodeSecurityGroupNames: ['capi-test-big-extra'], sshKeyName: 'ops' }));
    const cp: any = set.controlPlaneMachineTemplate;
    expect(cp.spec.template.spec).toEqual({
      flavor: 'SCS-4V-8-50s',
      image: { filter: { name: 'ubuntu-capi-image-v1.34.13' } },
      serverMetadata: [
        { key: 'team', value: 'platform' },
        { key: 'tier', value: 'control' },
      ],
      serverGroup: { id: CP_SERVER_GROUP_ID },
      securityGroups: [{ filter: { name: 'capi-test-big-extra' } }],
      sshKeyName: 'ops',
    });
    const md0: any = set.nodeGroups['md-0'].machineTemplate;
    expect(md0.spec.template.spec.serverGroup).toEqual({ id: MD_SERVER_GROUP_ID });
    const gpu: any = set.nodeGroups.gpu.machineTemplate;
    expect(gpu.spec.template.spec.serverGroup).toBeUndefined();
  });

  test('root volume: configured size; 25 GB for diskless SCS flavors; construct answer; none otherwise', () => {
    const set = buildClusterObjectSet(inputsFor(env, 'big'));
    const vol = (o: any) => o.spec.template.spec.rootVolume;
    expect(vol(set.controlPlaneMachineTemplate)).toBeUndefined(); // SCS-4V-8-50s has a 50 GB disk
    expect(vol(set.nodeGroups['md-0'].machineTemplate)).toEqual({ sizeGiB: 25 }); // SCS-4V-16 is diskless
    expect(vol(set.nodeGroups.gpu.machineTemplate)).toEqual({ sizeGiB: 100 }); // configured
    const answered = buildClusterObjectSet(inputsFor(env, 'big', { rootVolumeSizeGbWhenDiskless: { 'SCS-4V-16': 40, 'SCS-4V-8-50s': 0 } }));
    expect(vol(answered.nodeGroups['md-0'].machineTemplate)).toEqual({ sizeGiB: 40 });
    expect(vol(answered.controlPlaneMachineTemplate)).toBeUndefined();
    expect(scsFlavorDiskGb('SCS-2V-4-20s')).toBe(20);
    expect(scsFlavorDiskGb('SCS-2V-4')).toBe(0);
    expect(scsFlavorDiskGb('SCS-8V-32-2x100n')).toBe(200);
    expect(scsFlavorDiskGb('m1.large')).toBeUndefined();
  });
});
