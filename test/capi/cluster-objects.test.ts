import { parse } from 'yaml';
import {
  API,
  CLUSTER_NAME_LABEL,
  CLUSTER_SELECTOR_LABEL,
  ETCD_EXTRA_ARGS,
  INSTANCE_CREATE_TIMEOUT_ANNOTATION,
  KubeObject,
  MANAGED_BY_LABEL,
  MAX_FILE_CONTENT,
  WorkloadClusterInputs,
  buildClusterObjectSet,
  buildClusterObjects,
  contentHash,
  controllerInstanceCreateTimeoutMinutes,
  nodeFile,
  noProxyEntries,
  scsFlavorDiskGb,
  splitNodeLabels,
  stableStringify,
} from '../../lib/capi';
import { gunzipSync } from 'zlib';
import { validateAgainstCrd } from '../support/crd-validator';
import { CP_SERVER_GROUP_ID, EXTERNAL_NETWORK_ID, MD_SERVER_GROUP_ID, inputsFor, makeEnv, representativeEnv } from './fixtures';

const env = representativeEnv();
const byKind = (objs: KubeObject[], kind: string) => objs.filter((o) => o.kind === kind);
const one = (objs: KubeObject[], kind: string, name?: string): any => {
  const found = objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name ?? ''}, found ${found.length}`);
  return found[0];
};
const files = (spec: any): Record<string, any> => Object.fromEntries(spec.files.map((f: any) => [f.path, f]));

describe('CRD validity', () => {
  test.each(env.clusters.map((c) => c.name))('every object of cluster "%s" is valid for its CRD', (name) => {
    const objs = buildClusterObjects(inputsFor(env, name));
    expect(objs.length).toBeGreaterThanOrEqual(4);
    for (const o of objs) {
      expect({ object: `${o.kind}/${o.metadata.name}`, errors: validateAgainstCrd(o as any) }).toEqual({ object: `${o.kind}/${o.metadata.name}`, errors: [] });
    }
  });

  // found by the real API server (control-loop e2e): `files: []` breaks the CRD's minItems 1
  test('a node group with no node files (no proxy, no serving certificates) leaves `files` out', () => {
    const bare = makeEnv('clusters:\n  bare:\n    addons:\n      metricsServer: false\n');
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

describe('KubeadmControlPlane', () => {
  const kcp = (name: string) => one(buildClusterObjects(inputsFor(env, name)), 'KubeadmControlPlane');

  test('replicas, version, external cloud provider', () => {
    const k = kcp('big');
    expect(k.spec.replicas).toBe(3);
    expect(k.spec.version).toBe('v1.34.13');
    expect(k.spec.kubeadmConfigSpec.clusterConfiguration.controllerManager.extraArgs).toEqual([{ name: 'cloud-provider', value: 'external' }]);
    for (const phase of ['initConfiguration', 'joinConfiguration']) {
      const reg = k.spec.kubeadmConfigSpec[phase].nodeRegistration;
      expect(reg.name).toBe('{{ local_hostname }}');
      expect(reg.kubeletExtraArgs).toContainEqual({ name: 'cloud-provider', value: 'external' });
      expect(reg.kubeletExtraArgs).toContainEqual({ name: 'provider-id', value: "openstack:///'{{ instance_id }}'" });
    }
  });

  test('etcd tuning: heartbeat 250, election 2500, snapshot-count 6400, compaction 8h, 8 GiB quota', () => {
    const args = Object.fromEntries(kcp('defaults').spec.kubeadmConfigSpec.clusterConfiguration.etcd.local.extraArgs.map((a: any) => [a.name, a.value]));
    expect(args).toEqual({
      'heartbeat-interval': '250',
      'election-timeout': '2500',
      'snapshot-count': '6400',
      'auto-compaction-mode': 'periodic',
      'auto-compaction-retention': '8h',
      'quota-backend-bytes': '8589934592',
    });
    expect(ETCD_EXTRA_ARGS).toHaveLength(6);
  });

  test('daily etcd snapshot + defrag timer on every control-plane node', () => {
    const spec = kcp('defaults').spec.kubeadmConfigSpec;
    const f = files(spec);
    expect(f['/usr/local/sbin/etcd-maintenance.sh'].permissions).toBe('0750');
    expect(f['/usr/local/sbin/etcd-maintenance.sh'].content).toMatch(/etcdctl snapshot save/);
    expect(f['/usr/local/sbin/etcd-maintenance.sh'].content).toMatch(/etcdctl defrag/);
    expect(f['/etc/systemd/system/etcd-maintenance.timer'].content).toMatch(/OnCalendar=\*-\*-\* 02:30:00/);
    expect(spec.postKubeadmCommands).toContain('systemctl enable --now etcd-maintenance.timer');
  });

  test('etcd nobarrier mount only with etcdUnsafeFilesystem', () => {
    const big = kcp('big').spec.kubeadmConfigSpec;
    expect(files(big)['/usr/local/sbin/etcd-unsafe-fs.sh'].content).toMatch(/remount,nobarrier/);
    expect(big.preKubeadmCommands).toContain('systemctl enable --now etcd-unsafe-fs.service');
    const plain = kcp('defaults').spec.kubeadmConfigSpec;
    expect(files(plain)['/usr/local/sbin/etcd-unsafe-fs.sh']).toBeUndefined();
    expect(plain.preKubeadmCommands ?? []).not.toContain('systemctl enable --now etcd-unsafe-fs.service');
  });

  test('proxy drop-ins for containerd and kubelet, CA, mirrors, serving-cert patch', () => {
    const spec = kcp('big').spec.kubeadmConfigSpec;
    const f = files(spec);
    for (const unit of ['containerd', 'kubelet']) {
      expect(f[`/etc/systemd/system/${unit}.service.d/http-proxy.conf`].content).toMatch(/^Environment="HTTP_PROXY=http:\/\/proxy\.example\.test:3128" "HTTPS_PROXY=/m);
    }
    expect(f['/usr/local/share/ca-certificates/openstack-ca.crt'].content).toContain('BEGIN CERTIFICATE');
    expect(spec.preKubeadmCommands).toEqual(['systemctl daemon-reload', 'systemctl enable --now etcd-unsafe-fs.service', 'update-ca-certificates', 'systemctl restart containerd']);
    expect(f['/etc/kubernetes/patches/kubeletconfiguration0+strategic.yaml'].content).toBe('serverTLSBootstrap: true\n');
    expect(spec.initConfiguration.patches).toEqual({ directory: '/etc/kubernetes/patches' });
    // no metrics-server → no serving-cert patch (nothing would approve the CSRs)
    const bare = kcp('bare').spec.kubeadmConfigSpec;
    expect(files(bare)['/etc/kubernetes/patches/kubeletconfiguration0+strategic.yaml']).toBeUndefined();
    expect(bare.initConfiguration.patches).toBeUndefined();
  });
});

describe('node files', () => {
  test('NO_PROXY: loopback, metadata, cluster names, pod/service/node and management CIDRs, API address, operator entries', () => {
    const big = env.clusters.find((c) => c.name === 'big')!;
    expect(noProxyEntries(env, big, '203.0.113.10')).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      '169.254.169.254',
      '.svc',
      '.cluster.local',
      '172.16.0.0/16',
      '10.112.0.0/12',
      '10.10.0.0/20',
      '10.0.0.0/24',
      '203.0.113.10',
      '.example.test',
      '10.200.0.0/16',
    ]);
    const kct: any = buildClusterObjectSet(inputsFor(env, 'big')).nodeGroups['md-0'].bootstrapTemplate;
    const dropIn = files(kct.spec.template.spec)['/etc/systemd/system/kubelet.service.d/http-proxy.conf'].content;
    expect(dropIn).toContain(`"NO_PROXY=${noProxyEntries(env, big, '203.0.113.10').join(',')}"`);
    expect(dropIn).toContain('"no_proxy=localhost,127.0.0.1,');
  });

  test('no proxy configured → no drop-ins and no containerd restart', () => {
    const e = makeEnv('clusters:\n  c: {}\n');
    const k = one(buildClusterObjects(inputsFor(e, 'c')), 'KubeadmControlPlane').spec.kubeadmConfigSpec;
    expect(Object.keys(files(k)).filter((p) => p.includes('http-proxy'))).toEqual([]);
    expect(k.preKubeadmCommands).toBeUndefined();
  });

  test('registry mirrors: containerd hosts.toml with override_path for /v2 endpoints, CA and skip_verify', () => {
    const k = one(buildClusterObjects(inputsFor(env, 'defaults')), 'KubeadmControlPlane').spec.kubeadmConfigSpec;
    const f = files(k);
    const docker = f['/etc/containerd/certs.d/docker.io/hosts.toml'].content;
    expect(docker).toContain('server = "https://registry-1.docker.io"');
    expect(docker).toContain('[host."https://mirror.example.test/v2/dockerhub"]\n  capabilities = ["pull", "resolve"]\n  override_path = true\n  ca = "/etc/containerd/certs.d/docker.io/ca.crt"');
    expect(docker).toContain('[host."https://mirror2.example.test"]\n  capabilities = ["pull", "resolve"]\n  ca =');
    expect(docker.indexOf('mirror.example.test')).toBeLessThan(docker.indexOf('mirror2.example.test'));
    expect(f['/etc/containerd/certs.d/docker.io/ca.crt'].content).toContain('BEGIN CERTIFICATE');
    const quay = f['/etc/containerd/certs.d/quay.io/hosts.toml'].content;
    expect(quay).toContain('server = "https://quay.io"');
    expect(quay).toContain('skip_verify = true');
  });

  test('long content is stored gzip+base64 and round-trips; too long is refused', () => {
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i} of a long CA bundle`).join('\n');
    const f = nodeFile('/x', text);
    expect(text.length).toBeGreaterThan(MAX_FILE_CONTENT);
    expect(f.encoding).toBe('gzip+base64');
    expect(gunzipSync(Buffer.from(f.content, 'base64')).toString('utf8')).toBe(text);
    expect(nodeFile('/x', text)).toEqual(f); // deterministic
    const random = Array.from({ length: 20000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join('');
    expect(() => nodeFile('/big', random)).toThrow(/to fit in 10240 characters after gzip\+base64/);
  });
});

describe('node groups', () => {
  test('MachineDeployment: replicas, failure domain (own or first of cluster), version, selector, labels', () => {
    const set = buildClusterObjectSet(inputsFor(env, 'big'));
    const md0: any = set.nodeGroups['md-0'].machineDeployment;
    expect(md0.metadata.name).toBe('big-md-0');
    expect(md0.spec.replicas).toBe(4);
    expect(md0.spec.clusterName).toBe('big');
    expect(md0.spec.template.spec.failureDomain).toBe('az2');
    expect(md0.spec.template.spec.version).toBe('v1.34.13');
    expect(md0.spec.selector.matchLabels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'big', 'cluster.x-k8s.io/deployment-name': 'big-md-0' });
    for (const [k, v] of Object.entries(md0.spec.selector.matchLabels)) expect(md0.spec.template.metadata.labels[k]).toBe(v);
    // CAPI-synced label on the Machine, the other one through the kubelet
    expect(md0.spec.template.metadata.labels['node-role.kubernetes.io/worker']).toBe('');
    const kct: any = set.nodeGroups['md-0'].bootstrapTemplate;
    expect(kct.spec.template.spec.joinConfiguration.nodeRegistration.kubeletExtraArgs).toContainEqual({ name: 'node-labels', value: 'example.test/pool=general' });
    expect((set.nodeGroups.gpu.machineDeployment as any).spec.template.spec.failureDomain).toBe('az1');
    const noAz = buildClusterObjectSet(inputsFor(makeEnv('clusters:\n  c: {}\n'), 'c'));
    expect((noAz.nodeGroups['md-0'].machineDeployment as any).spec.template.spec.failureDomain).toBeUndefined();
  });

  test('label split by domain', () => {
    expect(splitNodeLabels({ 'node-role.kubernetes.io/infra': '', 'node.cluster.x-k8s.io/pool': 'a', tier: 'x', 'example.com/y': 'z' })).toEqual({
      machine: { 'node-role.kubernetes.io/infra': '', 'node.cluster.x-k8s.io/pool': 'a' },
      kubelet: { 'example.com/y': 'z', tier: 'x' },
    });
  });

  test('duplicate node group names are refused', () => {
    // the environment loader refuses this too; the builder does not rely on it
    const e = makeEnv('clusters:\n  c:\n    nodeGroups:\n      - { name: a }\n');
    const inputs = inputsFor(e, 'c');
    const dup = { ...inputs.cluster, spec: { ...inputs.cluster.spec, nodeGroups: [...inputs.cluster.spec.nodeGroups, ...inputs.cluster.spec.nodeGroups] } };
    expect(() => buildClusterObjects({ ...inputs, cluster: dup })).toThrow(/unique node group names/);
  });
});

describe('MachineHealthChecks', () => {
  test('control plane and workers, from the cluster settings (seconds, percent)', () => {
    const objs = buildClusterObjects(inputsFor(env, 'big'));
    const cp = one(objs, 'MachineHealthCheck', 'big-control-plane');
    expect(cp.spec.selector.matchLabels).toEqual({ 'cluster.x-k8s.io/cluster-name': 'big', 'cluster.x-k8s.io/control-plane': '' });
    expect(cp.spec.checks).toEqual({
      nodeStartupTimeoutSeconds: 1800,
      unhealthyNodeConditions: [
        { type: 'Ready', status: 'Unknown', timeoutSeconds: 420 },
        { type: 'Ready', status: 'False', timeoutSeconds: 420 },
      ],
    });
    expect(cp.spec.remediation).toEqual({ triggerIf: { unhealthyLessThanOrEqualTo: '34%' } });
    const workers = one(objs, 'MachineHealthCheck', 'big-workers');
    expect(workers.spec.selector.matchExpressions).toEqual([{ key: 'cluster.x-k8s.io/deployment-name', operator: 'Exists' }]);
    const defaults = one(buildClusterObjects(inputsFor(env, 'defaults')), 'MachineHealthCheck', 'defaults-control-plane');
    expect(defaults.spec.checks.nodeStartupTimeoutSeconds).toBe(1200);
    expect(defaults.spec.checks.unhealthyNodeConditions[0].timeoutSeconds).toBe(300);
    expect(defaults.spec.remediation.triggerIf.unhealthyLessThanOrEqualTo).toBe('40%');
  });

  test('disabled → none; no node groups → no worker check', () => {
    expect(byKind(buildClusterObjects(inputsFor(env, 'bare')), 'MachineHealthCheck')).toEqual([]);
    const e = makeEnv('clusters:\n  c:\n    nodeGroups: []\n');
    expect(byKind(buildClusterObjects(inputsFor(e, 'c')), 'MachineHealthCheck').map((o) => o.metadata.name)).toEqual(['c-control-plane']);
  });
});

describe('Cluster', () => {
  test('networks from the cluster CIDRs, endpoint = floating IP, no topology', () => {
    const c = one(buildClusterObjects(inputsFor(env, 'big')), 'Cluster');
    expect(c.spec.clusterNetwork).toEqual({ apiServerPort: 6443, pods: { cidrBlocks: ['172.16.0.0/16'] }, services: { cidrBlocks: ['10.112.0.0/12'] }, serviceDomain: 'cluster.local' });
    expect(c.spec.controlPlaneEndpoint).toEqual({ host: '203.0.113.10', port: 6443 });
    expect(c.spec.topology).toBeUndefined();
  });
});

describe('scale', () => {
  test('objects of 100 clusters are computed (and stay valid and uniquely named)', () => {
    const yaml = 'clusters:\n' + Array.from({ length: 100 }, (_, i) => `  c${i}:\n    nodeGroups:\n      - { name: a, count: ${i % 7} }\n      - { name: b, flavor: SCS-4V-8 }\n`).join('');
    const e = makeEnv(yaml, 'bench');
    const all = e.clusters.flatMap((c) => buildClusterObjects(inputsFor(e, c.name)));
    expect(all).toHaveLength(100 * 12); // OSC, CP template, KCP, 2 × (OSMT, KCT, MD), 2 MHC, Cluster
    const keys = new Set(all.map((o) => `${o.metadata.namespace}/${o.kind}/${o.metadata.name}`));
    expect(keys.size).toBe(all.length);
    expect(validateAgainstCrd(all[all.length - 1] as any)).toEqual([]);
    // the YAML of every object parses back to the same data
    const { stringify } = require('yaml');
    expect(parse(stringify(all[3]))).toEqual(all[3]);
  });
});
