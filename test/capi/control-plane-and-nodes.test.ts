import { parse } from 'yaml';
import {
  ETCD_EXTRA_ARGS,
  MAX_FILE_CONTENT,
  buildClusterObjectSet,
  buildClusterObjects,
  nodeFile,
  noProxyEntries,
  splitNodeLabels,
} from '../../lib/capi';
import { gunzipSync } from 'zlib';
import { validateAgainstCrd } from '../support/crd-validator';
import { inputsFor, makeEnv } from './fixtures';
import { byKind, env, files, one } from './object-queries';

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
    expect(spec.preKubeadmCommands).toEqual(['systemctl daemon-reload', 'systemctl enable --now capi-metadata-block.service', 'systemctl enable --now etcd-unsafe-fs.service', 'update-ca-certificates', 'systemctl restart containerd']);
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
    const e = makeEnv('clusters:\n  c: {}\n  open:\n    blockMetadataService: false\n');
    const k = one(buildClusterObjects(inputsFor(e, 'c')), 'KubeadmControlPlane').spec.kubeadmConfigSpec;
    expect(Object.keys(files(k)).filter((p) => p.includes('http-proxy'))).toEqual([]);
    expect(k.preKubeadmCommands).toEqual(['systemctl daemon-reload', 'systemctl enable --now capi-metadata-block.service']);
    const open = one(buildClusterObjects(inputsFor(e, 'open')), 'KubeadmControlPlane').spec.kubeadmConfigSpec;
    expect(open.preKubeadmCommands).toBeUndefined();
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
  test('control plane and workers, from the cluster settings (seconds, the count the percent allows)', () => {
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
    // 34 % of 3 control-plane machines (rounded down) and of 4 + 2 workers
    expect(cp.spec.remediation).toEqual({ triggerIf: { unhealthyLessThanOrEqualTo: 1 } });
    const workers = one(objs, 'MachineHealthCheck', 'big-workers');
    expect(workers.spec.selector.matchExpressions).toEqual([{ key: 'cluster.x-k8s.io/deployment-name', operator: 'Exists' }]);
    expect(workers.spec.remediation).toEqual({ triggerIf: { unhealthyLessThanOrEqualTo: 2 } });
    const defaults = one(buildClusterObjects(inputsFor(env, 'defaults')), 'MachineHealthCheck', 'defaults-control-plane');
    expect(defaults.spec.checks.nodeStartupTimeoutSeconds).toBe(1200);
    expect(defaults.spec.checks.unhealthyNodeConditions[0].timeoutSeconds).toBe(300);
    expect(defaults.spec.remediation.triggerIf.unhealthyLessThanOrEqualTo).toBe(1);
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
