/** The controller upgrade as Terraform runs it: what it refuses before it reaches the management API, and its answer when the API does not answer. */
import { MANIFEST_KEYS } from '../../../lib/config/provider-manifests';
import { DEFAULT_CONTROLLER_VERSIONS } from '../../../lib/config/versions';
import { parsePinnedManifests } from '../../../lib/runtime/management/component-repository';
import { runUpgradeFromEnv } from '../../../lib/runtime/management/upgrade-run';
import { makeTestPki } from '../readiness/support/pki';
import { environment, environmentYaml, resourcesOf, synthEnvironment } from '../../stacks/support';

async function run(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runUpgradeFromEnv(env, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

describe('upgrade-management (the management stack\'s local-exec)', () => {
  const pki = makeTestPki();
  const base = {
    KUBE_SERVER: 'https://127.0.0.1:9',
    KUBE_CA_PEM: pki.ca.certPem,
    KUBE_CLIENT_CERT_PEM: pki.client.certPem,
    KUBE_CLIENT_KEY_PEM: pki.client.keyPem,
    UPGRADE_ENVIRONMENT: 'prod',
    UPGRADE_CLUSTER_API: 'v1.13.6',
    UPGRADE_CAPO: 'v0.14.7',
    UPGRADE_CAAPH: 'v0.6.4',
    UPGRADE_BACKUP_DIR: '/nonexistent/backups',
  };

  test('a missing or malformed setting is exit 2 with its name, before anything is contacted', async () => {
    const { UPGRADE_CAPO: _omitted, ...withoutCapo } = base;
    const missing = await run(withoutCapo);
    expect(missing.code).toBe(2);
    expect(missing.err.join('\n')).toContain('UPGRADE_CAPO');
    const bad = await run({ ...base, UPGRADE_CLUSTER_API: 'latest; rm -rf /' });
    expect(bad.code).toBe(2);
    expect(bad.err).toEqual(['upgrade-management: UPGRADE_CLUSTER_API must be a version like v1.12.10, found "latest; rm -rf /"']);
  });

  test('pinned manifests that are not a list of known files with http(s) URLs and checksums are exit 2, before anything is contacted', async () => {
    const r = await run({ ...base, UPGRADE_PROVIDER_MANIFESTS: JSON.stringify([{ key: 'coreComponents', url: 'https://mirror.test/cluster-api/v1.13.6/core-components.yaml', path: '../cluster-api/v1.13.6/core-components.yaml', sha256: 'a'.repeat(64) }]) });
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(/^upgrade-management: UPGRADE_PROVIDER_MANIFESTS\[0\]: expected a path cluster-api\/<version>\/core-components\.yaml/);
  });

  test('the management stack hands the pinned manifests to the upgrade (every clusterctl provider and cert-manager, not ORC), and nothing when none are pinned', () => {
    const upgradeEnv = (yaml: string) => {
      const [upgrade] = resourcesOf(synthEnvironment(environment(yaml)).json['unit-management'], 'terraform_data').filter((r) => JSON.stringify(r.provisioner ?? []).includes('upgrade-management'));
      return upgrade.provisioner[0]['local-exec'].environment as Record<string, string>;
    };
    expect(upgradeEnv(environmentYaml())).not.toHaveProperty('UPGRADE_PROVIDER_MANIFESTS');
    const d = DEFAULT_CONTROLLER_VERSIONS;
    const sums = MANIFEST_KEYS.map((k, i) => `      ${k}: "${i.toString(16).repeat(64)}"`).join('\n');
    const pins = `management:\n  providerManifests:\n    baseUrl: https://mirror.test/capi\n    versions: { clusterApi: ${d.clusterApi}, capo: ${d.capo}, caaph: ${d.caaph} }\n    sha256:\n${sums}\n`;
    const handed = parsePinnedManifests(upgradeEnv(environmentYaml(pins)).UPGRADE_PROVIDER_MANIFESTS, 'UPGRADE_PROVIDER_MANIFESTS');
    expect(handed.map((m) => m.key)).toEqual(MANIFEST_KEYS.filter((k) => k !== 'orcInstall'));
    expect(handed.find((m) => m.key === 'coreComponents')).toEqual({ key: 'coreComponents', url: `https://mirror.test/capi/cluster-api/${d.clusterApi}/core-components.yaml`, path: `cluster-api/${d.clusterApi}/core-components.yaml`, sha256: '2'.repeat(64) });
  });

  test('a management API that does not answer is exit 1 naming the URL, and no key or clusterctl is needed to find that out', async () => {
    const r = await run(base);
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/^upgrade-management: GET https:\/\/127\.0\.0\.1:9\/apis\/clusterctl\.cluster\.x-k8s\.io\/v1alpha3\/providers: /);
    expect(r.err.join('\n')).not.toContain('PRIVATE KEY');
  });
});
