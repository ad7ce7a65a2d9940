import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PROVIDER_VERSIONS } from '../../lib/gen/versions';
import { loadProviderSchemas, validateStackJson } from '../support/provider-schema';
import { TEST_CA_PEM } from '../capi/fixtures';
import { environment, environmentYaml, resourcesOf, synthEnvironment } from './support';

const CLUSTER = `clusters:
  alpha:
    kubernetesVersion: v1.33.x
    controlPlane: { count: 3, flavor: SCS-2V-4-20s }
    nodeGroups:
      - { name: md-0, count: 2, flavor: SCS-2V-4-20s }
      - { name: md-1, count: 1, flavor: SCS-4V-8 }
`;

function manifests(stackJson: any): any[] {
  return resourcesOf(stackJson, 'kubernetes_manifest');
}

const synthesized = synthEnvironment(environment(environmentYaml(CLUSTER)));
const alpha = synthesized.json['unit-alpha'];

describe('WorkloadClusterStack', () => {

  test('is named <env>-<cluster> and depends on the management stack', () => {
    expect(Object.keys(synthesized.json).sort()).toEqual(['unit-alpha', 'unit-management']);
    expect(synthesized.stacks.clusters.alpha.dependencies.map((d) => d.node.id)).toEqual(['unit-management']);
  });

  test('the Kubernetes provider is configured only from management stack outputs (known before this stack plans)', () => {
    const provider = alpha.provider.kubernetes[0];
    for (const field of ['host', 'cluster_ca_certificate', 'client_certificate', 'client_key']) {
      expect(provider[field]).toMatch(/\$\{data\.terraform_remote_state\.cross-stack-reference-input-unit-management\.outputs\.[^}]+\}/);
    }
    expect(alpha.terraform.required_providers.kubernetes).toEqual({ source: PROVIDER_VERSIONS.kubernetes.source, version: PROVIDER_VERSIONS.kubernetes.constraint });
  });

  // found by the control-loop e2e: a flavor the cloud lacks left machines in Provisioning
  test('the flavors and the image the machine templates name are read at plan time, each flavor once', () => {
    const flavors = alpha.data.openstack_compute_flavor_v2;
    expect(Object.values(flavors).map((f: any) => ({ name: f.name, keys: Object.keys(f.for_each) }))).toEqual([{ name: '${each.value}', keys: ['SCS-2V-4-20s', 'SCS-4V-8'] }]);
    const [candidates] = Object.values(alpha.data.openstack_images_image_ids_v2) as any[];
    const [image] = Object.values(alpha.data.openstack_images_image_v2) as any[];
    expect({ candidates: candidates.name, image: image.name }).toEqual({ candidates: 'ubuntu-capi-image-v1.33.13', image: 'ubuntu-capi-image-v1.33.13' });
    expect(image.lifecycle.precondition[0].error_message).toContain('Image "ubuntu-capi-image-v1.33.13" not found');
  });

  test('per-cluster OpenStack pieces: restricted credential, API floating IP, server groups', () => {
    const [credential] = resourcesOf(alpha, 'openstack_identity_application_credential_v3');
    expect(credential.name).toBe('capi-unit-alpha');
    expect(credential.unrestricted).not.toBe(true);
    expect(resourcesOf(alpha, 'openstack_networking_floatingip_v2')).toHaveLength(1);
    const policies = resourcesOf(alpha, 'openstack_compute_servergroup_v2').map((g) => `${g.name}:${g.policies}`).sort();
    expect(policies).toEqual(['capi-unit-alpha-control-plane:anti-affinity', 'capi-unit-alpha-md-0:soft-anti-affinity', 'capi-unit-alpha-md-1:soft-anti-affinity']);
  });

  test('the credential carries roles and an expiry by default, renewed by a re-apply in its last 30 days', () => {
    const [credential] = resourcesOf(alpha, 'openstack_identity_application_credential_v3');
    const [scopeKey] = Object.keys(alpha.data.openstack_identity_auth_scope_v3);
    // member, plus Octavia's member role when the operator's token has it
    expect(credential.roles).toBe(
      `\${concat(["member"], contains(data.openstack_identity_auth_scope_v3.${scopeKey}.roles[*].role_name, "load-balancer_member") ? ["load-balancer_member"] : [])}`,
    );
    const [rotationKey, rotation] = Object.entries<any>(alpha.resource.time_rotating)[0];
    expect(rotation.rotation_days).toBe(335);
    expect(credential.expires_at).toBe(`\${timeadd(time_rotating.${rotationKey}.rfc3339, "8760h")}`);

    const custom = synthEnvironment(environment(environmentYaml(CLUSTER.replace('  alpha:\n', '  alpha:\n    applicationCredentialRoles: [member, reader]\n    applicationCredentialExpiresInDays: 20\n')))).json['unit-alpha'];
    const [own] = resourcesOf(custom, 'openstack_identity_application_credential_v3');
    expect(own.roles).toEqual(['member', 'reader']);
    expect(Object.values<any>(custom.resource.time_rotating).map((r) => r.rotation_days)).toEqual([10]);
    const never = synthEnvironment(environment(environmentYaml(CLUSTER.replace('  alpha:\n', '  alpha:\n    applicationCredentialExpiresInDays: 0\n')))).json['unit-alpha'];
    expect(resourcesOf(never, 'openstack_identity_application_credential_v3')[0].expires_at).toBeUndefined();
    expect(never.resource.time_rotating).toBeUndefined();
  });

  test('access rules are opt-in: none by default, the listed calls when given, checked at validate', () => {
    expect(resourcesOf(alpha, 'openstack_identity_application_credential_v3')[0].access_rules).toBeUndefined();
    const rules = '    applicationCredentialAccessRules:\n      - { service: compute, method: GET, path: "/v2.1/servers/*" }\n      - { service: load-balancer, method: POST, path: /v2/lbaas/loadbalancers }\n';
    const limited = synthEnvironment(environment(environmentYaml(CLUSTER.replace('  alpha:\n', `  alpha:\n${rules}`)))).json['unit-alpha'];
    expect(resourcesOf(limited, 'openstack_identity_application_credential_v3')[0].access_rules).toEqual([
      { service: 'compute', method: 'GET', path: '/v2.1/servers/*' },
      { service: 'load-balancer', method: 'POST', path: '/v2/lbaas/loadbalancers' },
    ]);
    expect(() => environment(environmentYaml(CLUSTER.replace('  alpha:\n', '  alpha:\n    applicationCredentialAccessRules:\n      - { service: compute, method: GET, path: "/x y" }\n')))).toThrow(
      /applicationCredentialAccessRules\[0\]\.path: expected an API path like \/v2\.1\/servers\/\*/,
    );
  });

  test('role names are checked at validate', () => {
    expect(() => environment(environmentYaml(CLUSTER.replace('  alpha:\n', '  alpha:\n    applicationCredentialRoles: ["member; rm"]\n')))).toThrow(
      /clusters\.alpha\.applicationCredentialRoles\[0\]: expected a Keystone role name/,
    );
    expect(() => environment(environmentYaml(CLUSTER.replace('  alpha:\n', '  alpha:\n    applicationCredentialRoles: []\n')))).toThrow(/expected at least one role/);
  });

  test('one MachineDeployment per node group, the Cluster applied after everything else', () => {
    const all = manifests(alpha);
    const deployments = all.filter((m) => m.manifest.kind === 'MachineDeployment').map((m) => [m.manifest.metadata.name, m.manifest.spec.replicas]);
    expect(deployments.sort()).toEqual([['alpha-md-0', 2], ['alpha-md-1', 1]]);
    const [clusterKey, cluster] = Object.entries<any>(alpha.resource.kubernetes_manifest).find(([, m]) => m.manifest.kind === 'Cluster')!;
    const others = Object.keys(alpha.resource.kubernetes_manifest).filter((k) => k !== clusterKey);
    const deps: string[] = cluster.depends_on;
    for (const key of others) expect(deps).toContain(`kubernetes_manifest.${key}`);
    expect(deps.some((d) => d.startsWith('kubernetes_secret_v1.'))).toBe(true);
  });

  test('destroy cleans up what OCCM and Cinder CSI created, alongside the Cluster deletion and before the credential goes', () => {
    const data = Object.entries<any>(alpha.resource.terraform_data ?? {});
    const [cleanupKey, cleanup] = data.find(([, r]) => JSON.stringify(r.provisioner ?? []).includes('cleanup-cluster-leftovers'))!;
    expect(cleanup.input).toEqual(
      expect.objectContaining({ cloud: 'testcloud', region: 'RegionOne', cluster_name: 'capi-unit-alpha', machine_network: 'k8s-clusterapi-cluster-capi-unit-alpha-alpha', volumes: 'delete', timeout_minutes: '35' }),
    );
    expect(cleanup.provisioner[0]['local-exec'].when).toBe('destroy');
    // The credential (and the Secret CAPO reads it from) outlive the cleanup ...
    expect(cleanup.depends_on.some((d: string) => d.startsWith('openstack_identity_application_credential_v3.'))).toBe(true);
    expect(cleanup.depends_on.some((d: string) => d.startsWith('kubernetes_secret_v1.'))).toBe(true);
    // ... and the Cluster deletion runs at the same time: neither waits for the other.
    const cluster = manifests(alpha).find((m) => m.manifest.kind === 'Cluster');
    expect(cluster.depends_on).not.toContain(`terraform_data.${cleanupKey}`);
    expect(JSON.stringify(cleanup.depends_on)).not.toContain('kubernetes_manifest');
    const keep = synthEnvironment(environment(environmentYaml(CLUSTER.replace('    kubernetesVersion: v1.33.x\n', '    kubernetesVersion: v1.33.x\n    deleteVolumesOnDestroy: false\n')))).json['unit-alpha'];
    const kept = Object.values<any>(keep.resource.terraform_data).find((r) => JSON.stringify(r.provisioner ?? []).includes('cleanup-cluster-leftovers'));
    expect(kept.input.volumes).toBe('keep');
  });

  test('CAPO instance create timeout: the largest of the environment on the controller, one field manager per cluster; none at the default', () => {
    expect(resourcesOf(alpha, 'kubernetes_env')).toHaveLength(0);
    const two = synthEnvironment(environment(environmentYaml(`${CLUSTER}    instanceCreateTimeoutMinutes: 12\n  beta:\n    kubernetesVersion: v1.33.x\n    network: { nodeCidr: 10.9.0.0/20 }\n`))).json;
    const schemas = loadProviderSchemas();
    for (const [stack, other] of [['unit-alpha', 'alpha'], ['unit-beta', 'beta']]) {
      const [env] = resourcesOf(two[stack], 'kubernetes_env');
      expect(env).toEqual(
        expect.objectContaining({
          api_version: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'capo-controller-manager', namespace: 'capo-system' },
          container: 'manager',
          env: [{ name: 'CLUSTER_API_OPENSTACK_INSTANCE_CREATE_TIMEOUT', value: '12' }],
          field_manager: `capi-openstack-cdktf-unit-${other}`,
          force: true,
        }),
      );
      const cluster = manifests(two[stack]).find((m) => m.manifest.kind === 'Cluster');
      expect(cluster.depends_on.some((d: string) => d.startsWith('kubernetes_env.'))).toBe(true);
      expect(validateStackJson(two[stack], schemas)).toEqual([]);
    }
  });

  test('the API floating IP is pinned in the OpenStackCluster, so Terraform owns the endpoint', () => {
    const osc = manifests(alpha).find((m) => m.manifest.kind === 'OpenStackCluster').manifest;
    expect(osc.spec.apiServerFloatingIP).toMatch(/^\$\{openstack_networking_floatingip_v2\.[^}]+\.address\}$/);
  });

  test('literal shell text in node files is escaped for Terraform, expressions are not', () => {
    const text = JSON.stringify(alpha.resource.kubernetes_manifest);
    expect(text).toContain('$${crictl[@]}');
    expect(text).not.toMatch(/[^$]\$\{crictl/);
  });

  test('the credential secret depends on nothing of CAPI, so destroy removes it after the Cluster', () => {
    const secrets = resourcesOf(alpha, 'kubernetes_secret_v1');
    expect(secrets.length).toBeGreaterThanOrEqual(1);
    for (const s of secrets) expect(JSON.stringify(s.depends_on ?? [])).not.toContain('kubernetes_manifest');
  });

  test('a disabled add-on has no HelmChartProxy', () => {
    const proxies = (json: any) => manifests(json).filter((m) => m.manifest.kind === 'HelmChartProxy').map((m) => m.manifest.metadata.name).sort();
    const on = proxies(alpha);
    expect(on.some((n: string) => n.includes('metrics-server'))).toBe(true);
    const off = synthEnvironment(environment(environmentYaml(`${CLUSTER}    addons:\n      metricsServer: false\n`))).json['unit-alpha'];
    // kubelet-csr-approver only serves metrics-server (which then needs no --kubelet-insecure-tls).
    expect(proxies(off)).toEqual(on.filter((n: string) => !n.includes('metrics-server') && !n.includes('kubelet-csr-approver')));
    expect(proxies(off).length).toBeGreaterThan(2);
  });
});

describe('WorkloadClusterStack with a private chart mirror (chartRepository)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-mirror-'));
  const caFile = path.join(dir, 'mirror-ca.pem');
  fs.writeFileSync(caFile, TEST_CA_PEM);
  const mirrored = synthEnvironment(environment(environmentYaml(`chartRepository:\n  url: oci://charts.site.example/mirror\n  caCertificateFile: ${caFile}\n${CLUSTER}`))).json['unit-alpha'];
  const caSecrets = (json: any) => Object.entries<any>(json.resource.kubernetes_secret_v1 ?? {}).filter(([, s]) => s.metadata.name === 'alpha-chart-repository-ca');

  test('the CA Secret is created beside the cluster\'s objects; every HelmChartProxy installs from the mirror, names it, and is applied after it', () => {
    const [[key, secret]] = caSecrets(mirrored);
    expect(secret.metadata.namespace).toMatch(/^\$\{kubernetes_namespace_v1\.[^}]+\.metadata\[0\]\.name\}$/);
    expect(secret.metadata.labels['clusterctl.cluster.x-k8s.io/move']).toBe('true');
    expect(secret.data).toEqual({ 'ca.crt': TEST_CA_PEM });
    const proxies = manifests(mirrored).filter((m) => m.manifest.kind === 'HelmChartProxy');
    expect(proxies.length).toBeGreaterThanOrEqual(7);
    for (const p of proxies) {
      expect(p.manifest.spec.repoURL).toBe('oci://charts.site.example/mirror');
      expect(p.manifest.spec.tlsConfig).toEqual({ caSecret: { name: 'alpha-chart-repository-ca', namespace: 'capi-unit-alpha' } });
      expect(p.depends_on).toContain(`kubernetes_secret_v1.${key}`);
    }
    expect(validateStackJson(mirrored, loadProviderSchemas())).toEqual([]);
  });

  test('without the setting: no CA Secret, the catalogue\'s public repositories', () => {
    expect(caSecrets(alpha)).toEqual([]);
    for (const p of manifests(alpha).filter((m) => m.manifest.kind === 'HelmChartProxy')) {
      expect(p.manifest.spec.repoURL).toMatch(/^(https|oci):\/\/(?!charts\.site\.example)/);
      expect(p.manifest.spec.tlsConfig).toBeUndefined();
    }
  });
});

describe('WorkloadClusterStack with an existing management cluster', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'byo-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  const synthesized = synthEnvironment(
    environment(environmentYaml(`existingManagementCluster:\n  kubeconfigFile: ${kubeconfig}\n  context: admin@mgmt\n  egressCidr: 192.0.2.0/24\n${CLUSTER}`)),
  );

  test('no management stack; the provider reads the given kubeconfig and context', () => {
    expect(Object.keys(synthesized.json)).toEqual(['unit-alpha']);
    const provider = synthesized.json['unit-alpha'].provider.kubernetes[0];
    expect(provider.config_path).toBe(kubeconfig);
    expect(provider.config_context).toBe('admin@mgmt');
    expect(synthesized.json['unit-alpha'].data.terraform_remote_state).toBeUndefined();
  });
});
