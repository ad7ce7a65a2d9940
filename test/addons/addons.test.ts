import { parse } from 'yaml';
import {
  ADDON_CATALOGUE,
  AddonId,
  CINDER_CSI_CHART_VERSIONS,
  CLOUD_CONFIG_RESOURCE_KEY,
  OCCM_CHART_VERSIONS,
  buildAddonObjects,
  buildCloudConfigSecret,
  cniMtu,
  enabledAddons,
  renderCloudConf,
  resolveOvn,
  valuesTemplate,
} from '../../lib/addons';
import { CLUSTER_NAME_LABEL, CLUSTER_SELECTOR_LABEL, KubeObject, MANAGED_BY_LABEL } from '../../lib/capi';
import { EnvironmentConfig } from '../../lib/config';
import { validateAgainstCrd } from '../support/crd-validator';
import { EXTERNAL_NETWORK_ID, TEST_CA_PEM, clusterOf, makeEnv, representativeEnv } from '../capi/fixtures';

const env = representativeEnv();
const CREDENTIAL = { authUrl: 'https://keystone.example.test:5000/v3', applicationCredentialId: 'app-cred-id-123', applicationCredentialSecret: 's3cr"et\\x' };

function addons(e: EnvironmentConfig, name: string, ovnAvailable?: boolean): KubeObject[] {
  return buildAddonObjects({ env: e, cluster: clusterOf(e, name), ovnAvailable });
}
function proxies(objs: KubeObject[]): Record<string, any> {
  return Object.fromEntries(objs.filter((o) => o.kind === 'HelmChartProxy').map((o) => [o.metadata.labels!['capi-openstack-cdktf/addon'], o]));
}
function values(hcp: any): any {
  return hcp.spec.valuesTemplate ? parse(hcp.spec.valuesTemplate) : {};
}
function secret(e: EnvironmentConfig, name: string, ovnAvailable?: boolean): any {
  return buildCloudConfigSecret({ env: e, cluster: clusterOf(e, name), credential: CREDENTIAL, externalNetworkId: EXTERNAL_NETWORK_ID, ovnAvailable });
}
function workloadSecret(e: EnvironmentConfig, name: string, ovnAvailable?: boolean): any {
  return parse(secret(e, name, ovnAvailable).stringData[CLOUD_CONFIG_RESOURCE_KEY]);
}

describe('CRD validity', () => {
  test.each(env.clusters.map((c) => c.name))('every add-on object of cluster "%s" is valid for its CRD', (name) => {
    const objs = addons(env, name);
    expect(objs.length).toBeGreaterThan(0);
    for (const o of objs) {
      expect({ object: `${o.kind}/${o.metadata.name}`, errors: validateAgainstCrd(o as any) }).toEqual({ object: `${o.kind}/${o.metadata.name}`, errors: [] });
    }
  });

  test('labels, namespace and cluster selection', () => {
    for (const o of addons(env, 'big')) {
      expect(o.metadata.labels?.[CLUSTER_NAME_LABEL]).toBe('big');
      expect(o.metadata.labels?.[MANAGED_BY_LABEL]).toBe('capi-openstack-cdktf');
      expect(o.metadata.namespace).toBe('capi-test-big');
      expect((o as any).spec.clusterSelector).toEqual({ matchLabels: { [CLUSTER_SELECTOR_LABEL]: 'big' } });
    }
  });

  test('every HelmChartProxy (owned by no Cluster) is marked for clusterctl move, so a management backup carries it', () => {
    const proxies = addons(env, 'big').filter((o) => o.kind === 'HelmChartProxy');
    expect(proxies.length).toBeGreaterThan(0);
    for (const o of proxies) expect(o.metadata.labels?.['clusterctl.cluster.x-k8s.io/move-hierarchy']).toBe('true');
  });

  test('HelmChartProxy names fit 63 characters for the longest cluster name', () => {
    const name = 'c'.repeat(32);
    const e = makeEnv(`clusters:\n  ${name}:\n    addons: { certManager: true, flux: true, gatewayApi: { enabled: true, version: 1.3.0-crds-only } }\n`);
    for (const o of addons(e, name)) expect(o.metadata.name.length).toBeLessThanOrEqual(63);
  });
});

describe('enabled and disabled add-ons', () => {
  test('defaults: CNI, OCCM, Cinder CSI + snapshot controller, metrics-server + CSR approver, ingress-nginx; credential ResourceSet', () => {
    const objs = addons(env, 'defaults');
    expect(Object.keys(proxies(objs)).sort()).toEqual(
      ['cilium', 'cinder-csi', 'ingress-nginx', 'kubelet-csr-approver', 'metrics-server', 'openstack-cloud-controller-manager', 'snapshot-controller'].sort(),
    );
    expect(objs.filter((o) => o.kind === 'ClusterResourceSet').map((o) => o.metadata.name)).toEqual(['defaults-cloud-config']);
  });

  test('all optional add-ons on', () => {
    expect(Object.keys(proxies(addons(env, 'ovn')))).toEqual(
      expect.arrayContaining(['cert-manager', 'flux', 'gateway-api-crds', 'ingress-nginx', 'openstack-cloud-controller-manager']),
    );
  });

  test('all switchable add-ons off: only the CNI, no ResourceSet, no credential Secret', () => {
    const objs = addons(env, 'bare');
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['HelmChartProxy/bare-cni']);
    expect(secret(env, 'bare')).toBeUndefined();
  });

  test('disabling one add-on removes exactly its HelmChartProxy', () => {
    const on = makeEnv('clusters:\n  c: {}\n');
    const off = makeEnv('clusters:\n  c:\n    addons: { ingressNginx: false }\n');
    const a = addons(on, 'c').map((o) => o.metadata.name);
    const b = addons(off, 'c').map((o) => o.metadata.name);
    expect(a.filter((n) => !b.includes(n))).toEqual(['c-ingress-nginx']);
    expect(b.filter((n) => !a.includes(n))).toEqual([]);
  });

  test('disabling metrics-server also removes the CSR approver; disabling Cinder CSI the snapshot controller', () => {
    const e = makeEnv('clusters:\n  c:\n    addons: { metricsServer: false, cinderCsi: false }\n');
    expect(Object.keys(proxies(addons(e, 'c'))).sort()).toEqual(['cilium', 'ingress-nginx', 'openstack-cloud-controller-manager']);
    // OCCM still needs the credential
    expect(addons(e, 'c').some((o) => o.kind === 'ClusterResourceSet')).toBe(true);
  });
});

describe('versions', () => {
  test('pinned defaults; cloud-provider-openstack charts follow the Kubernetes minor', () => {
    const p = proxies(addons(env, 'big')); // v1.34
    expect(p['openstack-cloud-controller-manager'].spec.version).toBe(OCCM_CHART_VERSIONS['v1.34']);
    expect(p['cinder-csi'].spec.version).toBe(CINDER_CSI_CHART_VERSIONS['v1.34']);
    expect(p.cilium.spec.version).toBe('1.18.5');
    const c = proxies(addons(env, 'calico')); // v1.33
    expect(c['openstack-cloud-controller-manager'].spec.version).toMatch(/^2\.33\.\d+$/);
    expect(c.calico.spec).toMatchObject({ repoURL: 'https://docs.tigera.io/calico/charts', chartName: 'tigera-operator', version: 'v3.30.3', namespace: 'tigera-operator' });
    for (const [minor, v] of Object.entries({ ...OCCM_CHART_VERSIONS, ...CINDER_CSI_CHART_VERSIONS })) expect(v.startsWith(`2.${minor.split('.')[1]}.`)).toBe(true);
  });

  test('per-cluster overrides', () => {
    const e = makeEnv(
      'clusters:\n  c:\n    addons:\n      cni: { version: 1.18.9 }\n      openstackCloudControllerManager: { version: 2.33.7 }\n      cinderCsi: { version: 2.33.8, snapshotControllerVersion: 4.1.0 }\n      ingressNginx: { version: 4.13.9 }\n',
    );
    const p = proxies(addons(e, 'c'));
    expect(p.cilium.spec.version).toBe('1.18.9');
    expect(p['openstack-cloud-controller-manager'].spec.version).toBe('2.33.7');
    expect(p['cinder-csi'].spec.version).toBe('2.33.8');
    expect(p['snapshot-controller'].spec.version).toBe('4.1.0');
    expect(p['ingress-nginx'].spec.version).toBe('4.13.9');
  });

  test('a Kubernetes minor without a pinned OCCM chart is refused where validate runs, naming the add-on', () => {
    expect(() => makeEnv('versions:\n  clusterApi: v1.12.10\nclusters:\n  c:\n    kubernetesVersion: v1.30.5\n', 'old')).toThrow(
      /clusters\.c\.addons\.openstackCloudControllerManager: expected a chart version for Kubernetes v1\.30 \(pinned only for v1\.31/,
    );
    const pinned = makeEnv('versions:\n  clusterApi: v1.12.10\nclusters:\n  c:\n    kubernetesVersion: v1.30.5\n    addons:\n      openstackCloudControllerManager: { version: 2.30.3 }\n      cinderCsi: { version: 2.30.1 }\n', 'old');
    expect(enabledAddons(clusterOf(pinned, 'c')).find((a) => a.id === 'openstack-cloud-controller-manager')?.version).toBe('2.30.3');
  });

  test('every catalogue entry names a repository, a chart, a namespace and a version', () => {
    for (const [id, chart] of Object.entries(ADDON_CATALOGUE)) {
      expect(chart.id).toBe(id as AddonId);
      expect(chart.repoURL).toMatch(/^(https|oci):\/\/[^\s]+$/);
      expect(chart.chartName).toMatch(/^[a-z0-9-]+$/);
      expect(chart.namespace).toMatch(/^[a-z0-9-]+$/);
      expect(chart.defaultVersion('v1.33')).toMatch(/^v?\d+\.\d+\.\d+$/);
    }
  });
});

describe('CNI', () => {
  test('MTU = cloud MTU − 50, detected when 0', () => {
    expect(cniMtu(env)).toBe(1450);
    expect(values(proxies(addons(env, 'defaults')).cilium).MTU).toBe(1450);
    const detect = makeEnv('clusters:\n  c: {}\n');
    expect(cniMtu(detect)).toBeUndefined();
    expect(values(proxies(addons(detect, 'c')).cilium).MTU).toBeUndefined();
  });

  test('cilium: kubernetes IPAM (pod CIDR from kubeadm), VXLAN tunnel; gateway API only when asked', () => {
    const v = values(proxies(addons(env, 'defaults')).cilium);
    expect(v).toMatchObject({ ipam: { mode: 'kubernetes' }, routingMode: 'tunnel', tunnelProtocol: 'vxlan' });
    expect(v.gatewayAPI).toBeUndefined();
    const g = values(proxies(addons(env, 'ovn')).cilium);
    expect(g.gatewayAPI).toEqual({ enabled: true });
    expect(g.nodePort).toEqual({ enabled: true });
    const crds = proxies(addons(env, 'ovn'))['gateway-api-crds'];
    expect(crds.spec).toMatchObject({ repoURL: 'oci://docker.io/envoyproxy', chartName: 'gateway-crds-helm' });
    expect(values(crds)).toEqual({ crds: { gatewayAPI: { enabled: true, channel: 'standard' }, envoyGateway: { enabled: false } } });
  });

  test('gatewayApi with crds: false: Cilium\'s gateway on, no CRD chart (the operator installs the CRDs)', () => {
    const e = makeEnv('clusters:\n  c:\n    addons: { gatewayApi: { enabled: true, crds: false } }\n');
    const p = proxies(addons(e, 'c'));
    expect(values(p.cilium).gatewayAPI).toEqual({ enabled: true });
    expect(Object.keys(p)).not.toContain('gateway-api-crds');
  });

  test('calico: IP pool = the cluster pod CIDR with IP-in-IP, MTU', () => {
    const v = values(proxies(addons(env, 'calico')).calico);
    expect(v.installation.calicoNetwork).toEqual({
      bgp: 'Enabled',
      mtu: 1450,
      ipPools: [{ cidr: '192.168.0.0/16', encapsulation: 'IPIP', natOutgoing: 'Enabled', nodeSelector: 'all()', blockSize: 26 }],
    });
  });
});

describe('OpenStack integration (OCCM, Cinder CSI, OVN)', () => {
  test('OCCM and Cinder CSI mount the delivered cloud-config Secret instead of creating one', () => {
    const p = proxies(addons(env, 'big'));
    const occm = values(p['openstack-cloud-controller-manager']);
    expect(occm.secret).toEqual({ enabled: true, create: false, name: 'cloud-config' });
    expect(occm.cluster).toEqual({ name: 'capi-test-big' });
    expect(occm.enabledControllers).not.toContain('route');
    const csi = values(p['cinder-csi']);
    expect(csi.secret).toEqual({ enabled: true, create: false, name: 'cloud-config', filename: 'cloud-csi.conf' });
    expect(csi.storageClass.delete.isDefault).toBe(true);
    const snap = values(p['snapshot-controller']);
    expect(snap.controller.volumeSnapshotClasses[0]).toMatchObject({ driver: 'cinder.csi.openstack.org', annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } });
    // no credential anywhere in a HelmChartProxy
    expect(JSON.stringify(addons(env, 'big'))).not.toContain('app-cred-id-123');
  });

  test('defaultStorageClass: false is honoured', () => {
    const e = makeEnv('clusters:\n  c:\n    addons:\n      cinderCsi: { defaultStorageClass: false }\n');
    expect(values(proxies(addons(e, 'c'))['cinder-csi']).storageClass.delete.isDefault).toBe(false);
  });

  test('credential Secret: resource-set type, workload Secret with both confs and the CA; ResourceSet reconciles it', () => {
    const s = secret(env, 'big');
    expect(s).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'addons.cluster.x-k8s.io/resource-set', metadata: { name: 'big-cloud-config', namespace: 'capi-test-big' } });
    const inner = workloadSecret(env, 'big');
    expect(inner.metadata).toMatchObject({ name: 'cloud-config', namespace: 'kube-system' });
    const occm = inner.stringData['cloud.conf'];
    expect(occm).toContain('auth-url="https://keystone.example.test:5000/v3"');
    expect(occm).toContain('application-credential-id="app-cred-id-123"');
    expect(occm).toContain('application-credential-secret="s3cr\\"et\\\\x"'); // quoted, escaped
    expect(occm).toContain('region="RegionOne"');
    expect(occm).toContain('ca-file="/etc/config/ca.crt"');
    expect(occm).toContain(`floating-network-id="${EXTERNAL_NETWORK_ID}"`);
    expect(occm).not.toContain('lb-provider');
    // Cinder CSI charts from 2.33.0 mount the Secret at /etc/config (the default v1.36 pin is 2.36.x)
    expect(inner.stringData['cloud-csi.conf']).toContain('ca-file="/etc/config/ca.crt"');
    expect(inner.stringData['cloud-csi.conf']).not.toContain('[LoadBalancer]');
    expect(inner.stringData['ca.crt']).toBe(TEST_CA_PEM);
    const crs: any = addons(env, 'big').find((o) => o.kind === 'ClusterResourceSet');
    expect(crs.spec).toEqual({ clusterSelector: { matchLabels: { [CLUSTER_SELECTOR_LABEL]: 'big' } }, resources: [{ kind: 'Secret', name: 'big-cloud-config' }], strategy: 'Reconcile' });
    // without a private CA: no ca-file, no ca.crt
    const plain = makeEnv('clusters:\n  c: {}\n');
    const inner2 = workloadSecret(plain, 'c');
    expect(inner2.stringData['ca.crt']).toBeUndefined();
    expect(inner2.stringData['cloud.conf']).not.toContain('ca-file');
  });

  test('OVN: lb-provider ovn, SOURCE_IP_PORT, monitors; auto follows what the construct found', () => {
    const conf = workloadSecret(env, 'ovn').stringData['cloud.conf'];
    expect(conf).toContain('lb-provider="ovn"');
    expect(conf).toContain('lb-method="SOURCE_IP_PORT"');
    expect(conf).toContain('create-monitor="true"');
    const bare = clusterOf(env, 'bare'); // ovnLoadBalancer: auto
    expect(resolveOvn(bare, true)).toBe(true);
    expect(resolveOvn(bare, false)).toBe(false);
    expect(resolveOvn(bare)).toBe(false);
    expect(resolveOvn(clusterOf(env, 'ovn'), false)).toBe(true);
    expect(resolveOvn(clusterOf(env, 'defaults'), true)).toBe(false);
    const autoEnv = makeEnv('clusters:\n  c: { ovnLoadBalancer: auto }\n');
    expect(workloadSecret(autoEnv, 'c', true).stringData['cloud.conf']).toContain('lb-provider="ovn"');
    expect(workloadSecret(autoEnv, 'c', false).stringData['cloud.conf']).not.toContain('lb-provider');
    expect(renderCloudConf({ env, cluster: clusterOf(env, 'ovn'), namespace: 'x', credential: CREDENTIAL, externalNetworkId: 'n', ovn: true, openstackClusterName: 'x' }, 'csi')).not.toContain('lb-provider');
  });
});

describe('ingress-nginx', () => {
  test('amphora: PROXY protocol + health monitor annotations, externalTrafficPolicy Local, real IP from the node CIDR', () => {
    const v = values(proxies(addons(env, 'big'))['ingress-nginx']);
    expect(v.controller.service).toEqual({
      externalTrafficPolicy: 'Local',
      annotations: { 'loadbalancer.openstack.org/proxy-protocol': 'true', 'loadbalancer.openstack.org/enable-health-monitor': 'true' },
    });
    expect(v.controller.config).toEqual({ 'use-proxy-protocol': 'true', 'proxy-real-ip-cidr': '10.10.0.0/20' });
  });

  test('OVN: plain service, no PROXY protocol', () => {
    const v = values(proxies(addons(env, 'ovn'))['ingress-nginx']);
    expect(v.controller.service).toEqual({ externalTrafficPolicy: 'Local' });
    expect(v.controller.config).toBeUndefined();
  });

  test('proxyProtocol: false keeps the health monitor, drops PROXY protocol', () => {
    const e = makeEnv('clusters:\n  c:\n    addons:\n      ingressNginx: { proxyProtocol: false }\n');
    const v = values(proxies(addons(e, 'c'))['ingress-nginx']);
    expect(v.controller.service.annotations).toEqual({ 'loadbalancer.openstack.org/enable-health-monitor': 'true' });
    expect(v.controller.config).toBeUndefined();
  });
});

describe('metrics-server without --kubelet-insecure-tls', () => {
  test('no insecure flag; the CSR approver only approves this cluster\'s nodes from the node network', () => {
    const p = proxies(addons(env, 'big'));
    expect(JSON.stringify(p['metrics-server'].spec)).not.toContain('insecure');
    const approver = values(p['kubelet-csr-approver']);
    expect(approver.providerRegex).toBe('^big-[a-z0-9-]+$');
    expect(approver.providerIpPrefixes).toEqual(['10.10.0.0/20']);
    expect(approver.bypassDnsResolution).toBe(true);
    expect(new RegExp(approver.providerRegex).test('big-md-0-x7k2p-9fgh2')).toBe(true);
    expect(new RegExp(approver.providerRegex).test('other-md-0-x7k2p')).toBe(false);
  });
});

describe('valuesTemplate', () => {
  test('plain data: Go template delimiters are escaped, keys sorted, empty values give no template', () => {
    const t = valuesTemplate({ b: 'x {{ .Cluster.metadata.name }} y', a: 1 });
    expect(t).toBe('a: 1\nb: x {{ "{{" }} .Cluster.metadata.name }} y\n');
    expect(valuesTemplate({})).toBe('');
    expect(proxies(addons(env, 'defaults'))['metrics-server'].spec.valuesTemplate).toBeUndefined();
  });
});
