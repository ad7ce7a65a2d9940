import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError, loadEnvironments, parseEnvironment } from '../../lib/config';
import { endOfLifeWarning, kubernetesSupportWarning, KUBERNETES_END_OF_LIFE, KUBERNETES_MAINTENANCE, KUBERNETES_TESTED_PATCHES, maintenanceWarning } from '../../lib/config/versions';
import { DEPLOY_CIDR, withDeployAccess } from '../support/deploy-access';
import { existingKubeconfig } from '../support/kubeconfig-fixture';
import { refusalOf } from '../support/refusal';

const FILE = 'environments/t.yaml';
const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';

/** Parses `text` as deployed from {@link DEPLOY_CIDR} (see withDeployAccess). */
function parse(text: string, file = FILE) {
  return parseEnvironment(withDeployAccess(text), file);
}

function errorOf(text: string, file = FILE): EnvironmentConfigError {
  return refusalOf(() => parse(text, file));
}

describe('valid environments', () => {
  test('a minimal file gets every default of the old tool', () => {
    const env = parse(base);
    expect(env.name).toBe('t');
    expect(env.spec.prefix).toBe('capi');
    expect(env.spec.network.managementCidr).toBe('10.0.0.0/24');
    expect(env.allocationPool).toEqual({ start: '10.0.0.11', end: '10.0.0.254' });
    expect(env.spec.network.dnsNameservers).toEqual(['5.1.66.255', '185.150.99.255']);
    expect(env.spec.management.flavor).toBe('SCS-2V-4');
    expect(env.spec.management.sshUsername).toBe('ubuntu');
    expect(env.spec.management.apiAllowedCidrs).toEqual([DEPLOY_CIDR]);
    expect(env.spec.management.sshAllowedCidrs).toEqual([]);
    expect(env.spec.management.waitForReady).toBe(true);
    expect(env.spec.management.readyTimeoutMinutes).toBe(20);
    expect(env.cloud.authUrl).toBe('https://keystone.test:5000/v3');
    expect(env.resourcePrefix).toBe('capi-t');
  });

  test('allocation pool follows a custom management CIDR', () => {
    const env = parse(`${base}network:\n  managementCidr: 10.1.2.0/26\n`, FILE);
    expect(env.allocationPool).toEqual({ start: '10.1.2.11', end: '10.1.2.62' });
  });

  test('clusters resolve Kubernetes .x versions, node images and failure domains', () => {
    const env = parse(`${base}availabilityZone: az1\nclusters:\n  prod:\n    kubernetesVersion: v1.33.x\n  skipped:\n    controlPlane: { count: 0 }\n`, FILE);
    expect(env.clusters.map((c) => c.name)).toEqual(['prod']);
    expect(env.clusters[0].kubernetesVersion).toMatch(/^v1\.33\.\d+$/);
    expect(env.clusters[0].nodeImage).toBe(`ubuntu-capi-image-${env.clusters[0].kubernetesVersion}`);
    expect(env.clusters[0].failureDomains).toEqual(['az1']);
  });

  test('the default Kubernetes version is v1.36 at its tested patch, with no warning about it', () => {
    const env = parse(`${base}clusters:\n  a: { apiAllowedCidrs: [0.0.0.0/0] }\n`, FILE);
    expect(env.clusters[0].kubernetesVersion).toBe(KUBERNETES_TESTED_PATCHES['v1.36']);
    expect(env.clusters[0].kubernetesVersion).toBe('v1.36.5');
    // only the unpinned manifests, the shared project (no management.cloud) and ingress-nginx (a file without featureFlags) are warned about
    expect(env.warnings.map((w) => w.path)).toEqual(['management.providerManifests', 'management.cloud', 'clusters.a.addons.ingressNginx']);
  });

  test('end of life: a warning on the day after the date, none on the date itself; the next step is one minor', () => {
    expect(endOfLifeWarning('v1.34.13', new Date('2026-10-27T12:00:00Z'))).toBeUndefined();
    expect(kubernetesSupportWarning('v1.34.13', new Date('2026-10-27T12:00:00Z'))).toMatch(/^Kubernetes v1.34 is in maintenance mode since 2026-08-27 /);
    expect(kubernetesSupportWarning('v1.34.13', new Date('2026-10-28T00:00:00Z'))).toBe(
      'Kubernetes v1.34 reached its end of life on 2026-10-27 and gets no security fixes; upgrade to v1.35.x next (one minor at a time; the default is v1.36.x)',
    );
    expect(kubernetesSupportWarning('v1.35.10', new Date('2027-03-01T00:00:00Z'))).toBe(
      'Kubernetes v1.35 reached its end of life on 2027-02-28 and gets no security fixes; upgrade to v1.36.x',
    );
    expect(endOfLifeWarning('v1.35.10', new Date('2027-02-01T00:00:00Z'))).toBeUndefined();
    expect(kubernetesSupportWarning('v1.99.0')).toBeUndefined();
  });

  test('maintenance mode: a warning from its first day until the end of life, none the day before', () => {
    expect(kubernetesSupportWarning('v1.35.x', new Date('2026-12-27T23:59:59Z'))).toBeUndefined();
    const expected = 'Kubernetes v1.35 is in maintenance mode since 2026-12-28 (critical fixes only; end of life on 2027-02-28); upgrade to v1.36.x';
    expect(kubernetesSupportWarning('v1.35.x', new Date('2026-12-28T00:00:00Z'))).toBe(expected);
    expect(kubernetesSupportWarning('v1.35.10', new Date('2027-02-28T23:00:00Z'))).toBe(expected);
    expect(maintenanceWarning('v1.35.10', new Date('2027-03-01T00:00:00Z'))).toBeUndefined();
    expect(kubernetesSupportWarning('v1.36.3', new Date('2027-04-28T00:00:00Z'))).toBe(
      'Kubernetes v1.36 is in maintenance mode since 2027-04-28 (critical fixes only; end of life on 2027-06-28); upgrade to v1.37.x',
    );
  });

  test('every minor not past its end of life has a maintenance start two months before it (the release calendar rule)', () => {
    for (const [minor, start] of Object.entries(KUBERNETES_MAINTENANCE)) {
      const eol = new Date(`${KUBERNETES_END_OF_LIFE[minor]}T00:00:00Z`);
      const s = new Date(`${start}T00:00:00Z`);
      expect([minor, (eol.getUTCFullYear() - s.getUTCFullYear()) * 12 + eol.getUTCMonth() - s.getUTCMonth(), eol.getUTCDate()]).toEqual([minor, 2, s.getUTCDate()]);
    }
    expect(Object.keys(KUBERNETES_MAINTENANCE)).toEqual(expect.arrayContaining(['v1.35', 'v1.36', 'v1.37']));
    expect(KUBERNETES_END_OF_LIFE).toMatchObject({ 'v1.35': '2027-02-28', 'v1.36': '2027-06-28', 'v1.37': '2027-10-28' });
  });

  test('a validated environment carries the support warning of its clusters (the clock decides; here a minor long past)', () => {
    const env = parse(`${base}clusters:\n  a: { kubernetesVersion: v1.33.x, apiAllowedCidrs: [0.0.0.0/0] }\n`, FILE);
    expect(env.warnings).toEqual([
      expect.objectContaining({ path: 'management.providerManifests' }),
      expect.objectContaining({ path: 'management.cloud' }),
      expect.objectContaining({ path: 'clusters.a.kubernetesVersion', message: expect.stringContaining('Kubernetes v1.33 reached its end of life on 2026-06-28') }),
      expect.objectContaining({ path: 'clusters.a.addons.ingressNginx' }),
    ]);
  });

  test('add-on booleans are shorthand for { enabled }', () => {
    const env = parse(`${base}clusters:\n  a:\n    addons:\n      certManager: true\n      metricsServer: false\n      flux: { version: 2.4.0 }\n`, FILE);
    const addons = env.clusters[0].spec.addons;
    expect(addons.certManager.enabled).toBe(true);
    expect(addons.metricsServer.enabled).toBe(false);
    expect(addons.flux).toEqual({ enabled: false, version: '2.4.0' });
    expect(addons.openstackCloudControllerManager.enabled).toBe(true);
  });

  test('auth URL, region and CA come from clouds.yaml when the file does not give them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clouds-'));
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    fs.writeFileSync(path.join(dir, 'ca.pem'), ca);
    fs.writeFileSync(
      path.join(dir, 'clouds.yaml'),
      'clouds:\n  c1:\n    auth:\n      auth_url: https://id.example:5000\n      password: never-read\n    region_name: R2\n    cacert: ca.pem\n',
    );
    const env = parse(`cloud:\n  name: c1\n  cloudsFile: ${path.join(dir, 'clouds.yaml')}\n`, FILE);
    expect(env.cloud).toMatchObject({ authUrl: 'https://id.example:5000', region: 'R2', caCertificatePem: ca });
    expect(JSON.stringify(env)).not.toContain('never-read');
  });
});

describe('invalid environments name the file, field, line, expectation and what was found', () => {
  test('overlapping CIDRs', () => {
    const e = errorOf(`${base}clusters:\n  prod:\n    network:\n      nodeCidr: 10.8.0.0/20\n      podCidr: 10.8.4.0/24\n`);
    expect(e.message).toContain(`${FILE}:8:16: clusters.prod.network.podCidr: expected a range that does not overlap network.nodeCidr 10.8.0.0/20, found "10.8.4.0/24"`);
  });

  test('cluster network overlapping the management subnet', () => {
    const e = errorOf(`${base}clusters:\n  prod:\n    network:\n      nodeCidr: 10.0.0.0/20\n`);
    expect(e.message).toContain('clusters.prod.network.nodeCidr: expected a range that does not overlap the management subnet 10.0.0.0/24, found "10.0.0.0/20"');
  });

  test('a load balancer provider other than ovn beside ovnLoadBalancer, and one that is no identifier', () => {
    const e = errorOf(`${base}clusters:\n  prod:\n    ovnLoadBalancer: true\n    loadBalancerProvider: amphora\n`);
    expect(e.message).toContain(`${FILE}:7:27: clusters.prod.loadBalancerProvider: expected ovn or no loadBalancerProvider with ovnLoadBalancer: true, found "amphora"`);
    const bad = errorOf(`${base}clusters:\n  prod:\n    loadBalancerProvider: "\${x}"\n`);
    expect(bad.message).toContain('clusters.prod.loadBalancerProvider: expected letters, digits');
    expect(parse(`${base}clusters:\n  prod:\n    ovnLoadBalancer: true\n    loadBalancerProvider: ovn\n`).spec.clusters.prod.loadBalancerProvider).toBe('ovn');
  });

  test('wrong type', () => {
    const e = errorOf(`${base}network:\n  mtu: large\n`);
    expect(e.message).toContain(`${FILE}:5:8: network.mtu: expected a number, found "large"`);
  });

  test('unknown field (typo) is reported at its key', () => {
    const e = errorOf(`${base}managment:\n  flavor: x\n`);
    expect(e.message).toContain(`${FILE}:4:1: managment: unknown field "managment"`);
  });

  test('bad CIDR and address outside the subnet', () => {
    const e = errorOf(`${base}network:\n  managementCidr: 10.0.0.1/24\n`);
    expect(e.message).toContain('network.managementCidr: expected an IPv4 CIDR with zero host bits, like 10.0.0.0/24 (no leading zeros, no spaces), found "10.0.0.1/24"');
    const e2 = errorOf(`${base}network:\n  allocationPoolStart: 10.9.0.5\n`);
    expect(e2.message).toContain('network.allocationPoolStart: expected a host address inside managementCidr 10.0.0.0/24 (not its network or broadcast address), found "10.9.0.5"');
  });

  test('missing required field', () => {
    const e = errorOf('prefix: capi\n');
    expect(e.message).toContain('cloud: expected a mapping, found nothing');
  });

  test('name and prefix limits', () => {
    expect(errorOf(`${base}prefix: Capi_Prod\n`).message).toContain('prefix: expected lowercase letters, digits and "-"');
    expect(errorOf(`${base}prefix: a-very-long-prefix-that-exceeds\n`).message).toContain('prefix: expected at most 20 characters');
    expect(errorOf(base, 'environments/Bad_Name.yaml').message).toContain('expected an environment name of lowercase letters');
    const long = 'c'.repeat(32);
    expect(errorOf(`${base}clusters:\n  ${long}:\n    nodeGroups:\n      - name: workers-long-name-xx\n`).message).toContain('so machine host names stay within 63');
    expect(errorOf(`${base}clusters:\n  management: {}\n`).message).toContain('reserved for the management stack');
  });

  test('version matrix', () => {
    expect(errorOf(`${base}versions:\n  clusterApi: v1.9.0\n`).message).toContain('versions.clusterApi: expected a supported Cluster API release (v1.12.x, v1.13.x, v1.14.x), found "v1.9.0"');
    expect(errorOf(`${base}versions:\n  capo: v0.10.1\n`).message).toContain('versions.capo: expected a CAPO release matching Cluster API v1.14.2 (v0.14.x), found "v0.10.1"');
    expect(errorOf(`${base}versions:\n  caaph: v0.2.0\n`).message).toContain('versions.caaph: expected a Helm add-on provider release');
    expect(errorOf(`${base}clusters:\n  a:\n    kubernetesVersion: v1.30.x\n`).message).toContain(
      'clusters.a.kubernetesVersion: expected a Kubernetes version between v1.31.x and v1.37.x (supported by Cluster API v1.14.2), found "v1.30.x"',
    );
    expect(errorOf(`${base}versions:\n  clusterApi: v1.12.10\nclusters:\n  a:\n    kubernetesVersion: v1.37.x\n`).message).toContain(
      'clusters.a.kubernetesVersion: expected a Kubernetes version between v1.29.x and v1.36.x (supported by Cluster API v1.12.10), found "v1.37.x"; Kubernetes v1.37 needs Cluster API v1.13.2 or newer (versions.clusterApi)',
    );
    expect(errorOf(`${base}versions:\n  clusterApi: v1.12.7\nclusters:\n  a:\n    kubernetesVersion: v1.36.x\n`).message).toContain(
      'clusters.a.kubernetesVersion: expected Cluster API v1.12.8 or newer for Kubernetes v1.36 (versions.clusterApi is v1.12.7), found "v1.36.x"',
    );
    expect(parse(`${base}versions:\n  clusterApi: v1.13.6\nclusters:\n  a:\n    kubernetesVersion: v1.37.x\n    apiAllowedCidrs: [0.0.0.0/0]\n    addons: { openstackCloudControllerManager: { version: 2.37.0 }, cinderCsi: { version: 2.37.0 } }\n`, FILE).clusters[0].kubernetesVersion).toBe('v1.37.2');
  });

  test('an add-on written as a mapping: a bad field is named, not "expected a boolean" of the true/false shorthand', () => {
    const err = errorOf(`${base}clusters:\n  a:\n    addons:\n      cinderCsi: { enabled: true, defaultStorageClass: yes-please }\n`);
    expect(err.message).toContain('clusters.a.addons.cinderCsi.defaultStorageClass: expected a boolean, found "yes-please"');
    expect(err.message).not.toContain("clusters.a.addons.cinderCsi: expected a boolean");
    expect(errorOf(`${base}clusters:\n  a:\n    addons:\n      cinderCsi: maybe\n`).message).toContain('clusters.a.addons.cinderCsi: expected a boolean, found "maybe"');
  });

  test('counts and enums', () => {
    expect(errorOf(`${base}clusters:\n  a:\n    controlPlane: { count: 2 }\n`).message).toContain('clusters.a.controlPlane.count: expected an odd number');
    expect(errorOf(`${base}clusters:\n  a:\n    addons:\n      cni: { type: flannel }\n`).message).toContain('clusters.a.addons.cni.type: expected one of "cilium", "calico", found "flannel"');
    const calicoGateway = (gateway: string) => `${base}clusters:\n  a:\n    addons:\n      cni: { type: calico }\n      gatewayApi: ${gateway}\n`;
    expect(errorOf(calicoGateway('{ enabled: true, crds: false, implementation: cilium }')).message).toContain(
      'clusters.a.addons.gatewayApi.implementation: expected implementation traefik with cni.type "calico" (Cilium\'s gateway needs the Cilium CNI), found implementation cilium',
    );
    expect(errorOf(calicoGateway('{ enabled: true, crds: false, implementation: envoy }')).message).toContain('clusters.a.addons.gatewayApi.implementation: expected one of "cilium", "traefik", found "envoy"');
  });

  test('gatewayApi: the pinned CRD chart cannot be installed, so crds: true is refused unless a version of your mirror is named', () => {
    const cluster = (addon: string) => `${base}clusters:\n  a:\n    addons:\n      gatewayApi: ${addon}\n`;
    const err = errorOf(cluster('true'));
    expect(err.message).toContain('clusters.a.addons.gatewayApi.crds: expected crds: false with the Gateway API CRDs installed by you (docs/addons.md#gateway-api), found crds: true');
    expect(err.message).toContain('exceeds the 1 MiB limit of the Secret Helm stores it in');
    expect(parse(cluster('{ enabled: true, crds: false }'), FILE).clusters[0].spec.addons.gatewayApi).toMatchObject({ enabled: true, crds: false });
    expect(parse(cluster('{ enabled: true, version: 1.3.0-crds-only }'), FILE).clusters[0].spec.addons.gatewayApi).toMatchObject({ enabled: true, crds: true, version: '1.3.0-crds-only' });
    expect(parse(cluster('false'), FILE).clusters[0].spec.addons.gatewayApi.enabled).toBe(false);
  });

  test('YAML syntax errors and duplicate keys', () => {
    expect(errorOf(`${base}prefix: [a\n`).message).toMatch(/expected valid YAML, found a syntax error/);
    expect(errorOf(`${base}prefix: a\nprefix: b\n`).message).toMatch(/t\.yaml:5:1: \(root\): expected valid YAML.*(duplicate|unique)/i);
  });

  test('all problems of a file are reported at once, on one screen', () => {
    const e = errorOf(`${base}prefix: X\nnetwork:\n  mtu: -1\n  managementCidr: bad\n`);
    expect(e.issues.length).toBe(3);
    expect(e.message.split('\n').length).toBeLessThanOrEqual(24);
  });

  // a newline in the proxy became a directive of the nodes' systemd drop-ins (existingManagementCluster path)
  test('values that reach systemd, environment files and containerd are single tokens, on every path', () => {
    const byo = `${base}existingManagementCluster: { kubeconfigFile: ${existingKubeconfig()} }\n`;
    const injected = errorOf(`${byo}proxy:\n  httpProxy: "http://p:3128\\nExecStartPre=/bin/touch /tmp/x"\n`).message;
    expect(injected).toMatch(/t\.yaml:\d+:\d+: proxy\.httpProxy: expected an http\(s\) URL without spaces, control characters/);
    expect(errorOf(`${byo}proxy:\n  noProxy: ["ok.example", "x y"]\n`).message).toContain('proxy.noProxy[1]: expected a host name');
    expect(errorOf(`${byo}registryMirrors:\n  - registry: "docker.io\\nx"\n    endpoints: [https://m.example]\n`).message).toContain('registryMirrors[0].registry: expected a registry host');
    expect(errorOf(`${byo}registryMirrors:\n  - registry: docker.io\n    endpoints: ["https://m.example/$(id)"]\n`).message).toContain('registryMirrors[0].endpoints[0]: expected an http(s) URL');
    // what operators write stays valid
    const ok = parse(`${byo}proxy:\n  httpProxy: http://proxy.example.com:3128/\n  noProxy: [.corp.example, 10.0.0.0/8, "*", registry.local:5000, 2001:db8::1]\nregistryMirrors:\n  - registry: registry.example.com:5000\n    endpoints: [https://mirror.example/v2/x]\n`, FILE);
    expect(ok.spec.proxy.noProxy).toHaveLength(5);
  });

  // these ended in exceptions without file or line, or (__proto__) in "ok (0 clusters)"
  test('YAML that would touch prototypes or expand without bound is refused with its line', () => {
    expect(errorOf(`${base}clusters:\n  __proto__:\n    controlPlane: { count: 1 }\n`).message).toMatch(/t\.yaml:5:3: __proto__: expected a name other than "__proto__"/);
    expect(errorOf(`${base}prefix: *nothing\n`).message).toMatch(/t\.yaml:4:9: \(alias\): expected an alias to an anchor defined above it, found "\*nothing"/);
    expect(errorOf(`${base}clusters: &loop\n  a: *loop\n`).message).toMatch(/t\.yaml:5:6: \(alias\): expected an alias outside the node it refers to/);
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    const bomb = errorOf(`${base}metadataBomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`);
    expect(bomb.message).toContain('expected aliases that expand to at most 200 nodes');
    expect(bomb.message.length).toBeLessThan(2000);
    // anchors and aliases used for what they are for stay fine
    const ok = parse(`${base}clusters:\n  a:\n    nodeGroups: &groups\n      - { name: md-0, count: 1 }\n  b:\n    network: { nodeCidr: 10.9.0.0/20 }\n    nodeGroups: *groups\n`, FILE);
    expect(ok.clusters.map((c) => c.spec.nodeGroups[0].name)).toEqual(['md-0', 'md-0']);
  });

  test('versions are canonical; cloud names are non-empty, bounded and free of control characters', () => {
    for (const v of ['v1.33.05', 'v01.33.5', 'v1.33.12345678901234567890']) {
      expect(errorOf(`${base}clusters:\n  a:\n    kubernetesVersion: ${v}\n`).message).toContain('clusters.a.kubernetesVersion: expected a version like v1.33.5 or v1.33.x');
    }
    // the names clouds use pass: Cinder's default volume type, zones with ":" and regions with spaces
    const named = parse(`${base}  region: Region One\navailabilityZone: "nova:az-1"\nmanagement:\n  bootVolumeType: __DEFAULT__\n`);
    expect([named.cloud.region, named.spec.availabilityZone, named.spec.management.bootVolumeType]).toEqual(['Region One', 'nova:az-1', '__DEFAULT__']);
    expect(errorOf(`${base}  region: ""\n`).message).toContain('cloud.region: expected letters, digits, spaces and . _ - : + @ (starting with a letter, digit or "_", not ending with a space), found ""');
    expect(errorOf(`${base}clusters:\n  a:\n    controlPlane: { flavor: "SCS\\tx" }\n`).message).toContain('clusters.a.controlPlane.flavor: expected a name without control characters');
    const long = errorOf(`${base}management:\n  image: "${'x'.repeat(100_000)}"\n`).message;
    expect(long).toContain('management.image: expected at most 255 characters');
    expect(long).toContain('(100000 characters)');
    expect(long.length).toBeLessThan(1000);
  });

  test('ranges of usable sizes; the pool keeps clear of the network and broadcast addresses', () => {
    expect(errorOf(`${base}network:\n  managementCidr: 10.0.0.0/24\n  allocationPoolStart: 10.0.0.10\n  allocationPoolEnd: 10.0.0.255\n`).message).toContain(
      'network.allocationPoolEnd: expected a host address inside managementCidr 10.0.0.0/24 (not its network or broadcast address), found "10.0.0.255"',
    );
    const cluster = (net: string) => errorOf(`${base}clusters:\n  a:\n    network: { ${net} }\n`).message;
    expect(cluster('nodeCidr: 10.8.0.0/31')).toContain('clusters.a.network.nodeCidr: expected a prefix length from /8 to /28');
    expect(cluster('nodeCidr: 10.8.0.1/32')).toContain('clusters.a.network.nodeCidr');
    expect(cluster('serviceCidr: 10.96.0.0/30')).toContain('clusters.a.network.serviceCidr: expected a prefix length from /12 to /24');
    expect(cluster('podCidr: 192.168.0.0/25')).toContain('clusters.a.network.podCidr: expected a prefix length from /8 to /24');
  });

  test('a missing CA file is named', () => {
    expect(errorOf(`${base}  caCertificateFile: ./nope.pem\n`).message).toContain('cloud.caCertificateFile: expected a readable PEM file, found no file at');
  });
});

describe('loadEnvironments', () => {
  test('ENVIRONMENT names that have no file are refused', () => {
    expect(() => loadEnvironments('environments', ['nope'])).toThrow(/ENVIRONMENT names "nope" but environments has no such file/);
  });

  test('every shipped environment file is valid', () => {
    const envs = loadEnvironments('environments');
    expect(envs.map((e) => e.name)).toContain('example');
  });
});
