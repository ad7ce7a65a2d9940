/** The controller upgrade as Terraform runs it: what it refuses before it reaches the management API, and its answer when the API does not answer. */
import { runUpgradeFromEnv } from '../../../lib/runtime/management/upgrade-run';
import { makeTestPki } from '../readiness/support/pki';

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

  test('a management API that does not answer is exit 1 naming the URL, and no key or clusterctl is needed to find that out', async () => {
    const r = await run(base);
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/^upgrade-management: GET https:\/\/127\.0\.0\.1:9\/apis\/clusterctl\.cluster\.x-k8s\.io\/v1alpha3\/providers: /);
    expect(r.err.join('\n')).not.toContain('PRIVATE KEY');
  });
});
