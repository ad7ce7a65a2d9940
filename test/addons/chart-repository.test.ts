/** `chartRepository`: one private chart mirror for every add-on, its CA in a Secret the HelmChartProxies name. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ADDON_CATALOGUE, AddonId, CHART_REPOSITORY_CA_KEY, buildAddonObjects, buildChartRepositoryCaSecret, chartRepositoryCaSecretName } from '../../lib/addons';
import { KubeObject } from '../../lib/capi';
import { EnvironmentConfig, EnvironmentConfigError } from '../../lib/config';
import { validateAgainstCrd } from '../support/crd-validator';
import { TEST_CA_PEM, clusterOf, makeEnv } from '../capi/fixtures';

const CLUSTERS = `clusters:
  one:
    addons:
      certManager: true
      flux: true
      gatewayApi: { enabled: true, version: 1.3.0-crds-only }
  two:
    addons:
      cni: { type: calico }
`;
const withMirror = (mirror: string) => makeEnv(`chartRepository:\n${mirror}${CLUSTERS}`);

function proxies(env: EnvironmentConfig, cluster: string): KubeObject[] {
  return buildAddonObjects({ env, cluster: clusterOf(env, cluster) }).filter((o) => o.kind === 'HelmChartProxy');
}
const spec = (o: KubeObject) => o.spec as Record<string, any>;

function refusal(mirror: string): string {
  try {
    withMirror(mirror);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(mirror)} to be refused`);
}

describe('without chartRepository', () => {
  test('every HelmChartProxy names its chart\'s public repository and no CA; no CA Secret', () => {
    const env = makeEnv(CLUSTERS);
    expect(env.chartRepository).toBeUndefined();
    for (const hcp of proxies(env, 'one')) {
      const id = hcp.metadata.labels!['capi-openstack-cdktf/addon'] as AddonId;
      expect(spec(hcp).repoURL).toBe(ADDON_CATALOGUE[id].repoURL);
      expect(spec(hcp).tlsConfig).toBeUndefined();
    }
    expect(buildChartRepositoryCaSecret({ env, cluster: clusterOf(env, 'one') })).toBeUndefined();
  });
});

describe('an oci:// mirror with a private CA', () => {
  const env = withMirror('  url: oci://charts.site.example:5443/mirror\n  caCertificateFile: ca.pem\n');

  test('every HelmChartProxy of every cluster installs from the mirror and names the CA Secret in the cluster\'s namespace', () => {
    for (const cluster of ['one', 'two']) {
      const all = proxies(env, cluster);
      // CNI, OCCM, Cinder CSI, snapshot controller, metrics-server, CSR approver, ingress-nginx (+ cert-manager, flux, Gateway API on "one")
      expect(all.length).toBe(cluster === 'one' ? 10 : 7);
      for (const hcp of all) {
        expect(spec(hcp).repoURL).toBe('oci://charts.site.example:5443/mirror');
        expect(spec(hcp).tlsConfig).toEqual({ caSecret: { name: `${cluster}-chart-repository-ca`, namespace: `capi-test-${cluster}` } });
        // the chart name and version stay the catalogue's: the mirror holds the same charts
        const id = hcp.metadata.labels!['capi-openstack-cdktf/addon'] as AddonId;
        expect(spec(hcp).chartName).toBe(ADDON_CATALOGUE[id].chartName);
      }
    }
  });

  test('the HelmChartProxies stay valid for CAAPH v0.6.4\'s CRD (tlsConfig.caSecret)', () => {
    for (const hcp of proxies(env, 'one')) expect({ hcp: hcp.metadata.name, errors: validateAgainstCrd(hcp as any) }).toEqual({ hcp: hcp.metadata.name, errors: [] });
  });

  test('the CA Secret: the certificates under ca.crt (the key CAAPH reads), in the cluster\'s namespace, carried by clusterctl move', () => {
    const secret = buildChartRepositoryCaSecret({ env, cluster: clusterOf(env, 'two') })!;
    expect(secret.metadata).toMatchObject({ name: chartRepositoryCaSecretName('two'), namespace: 'capi-test-two' });
    expect(secret.metadata.labels).toMatchObject({ 'clusterctl.cluster.x-k8s.io/move': 'true', 'cluster.x-k8s.io/cluster-name': 'two' });
    expect(CHART_REPOSITORY_CA_KEY).toBe('ca.crt');
    expect(secret.stringData).toEqual({ 'ca.crt': TEST_CA_PEM });
  });

  test('an explicit namespace (the construct\'s) is where the Secret goes and what the proxies name', () => {
    const inputs = { env, cluster: clusterOf(env, 'one'), namespace: 'elsewhere' };
    expect(buildChartRepositoryCaSecret(inputs)!.metadata.namespace).toBe('elsewhere');
    for (const hcp of buildAddonObjects(inputs).filter((o) => o.kind === 'HelmChartProxy')) expect(spec(hcp).tlsConfig.caSecret.namespace).toBe('elsewhere');
  });
});

describe('a publicly trusted mirror (no CA)', () => {
  test.each(['https://charts.site.example/stable', 'oci://registry.site.example/charts'])('%s: the URL in every proxy, no tlsConfig, no Secret', (url) => {
    const env = withMirror(`  url: ${url}\n`);
    for (const hcp of proxies(env, 'one')) {
      expect(spec(hcp).repoURL).toBe(url);
      expect(spec(hcp).tlsConfig).toBeUndefined();
    }
    expect(buildChartRepositoryCaSecret({ env, cluster: clusterOf(env, 'one') })).toBeUndefined();
  });
});

describe('refused, with file, line, field, expectation and what was found', () => {
  test.each([
    ['plain http', 'http://charts.site.example'],
    ['another scheme', 'ftp://charts.site.example'],
    ['no scheme', 'charts.site.example/stable'],
  ])('%s', (_what, url) => {
    const message = refusal(`  url: ${url}\n`);
    expect(message).toMatch(/test\.yaml:\d+/);
    expect(message).toContain('chartRepository.url: expected an https:// chart repository or an oci:// registry path (the only schemes the Helm add-on provider takes)');
    expect(message).toContain(url);
  });

  test('credentials in the URL', () => {
    const message = refusal('  url: oci://robot:s3cret@registry.site.example/charts\n');
    expect(message).toContain('chartRepository.url: expected a URL without "user:password@"');
  });

  test('an https:// repository with a CA: CAAPH v0.6 would not use the CA for it', () => {
    const message = refusal('  url: https://charts.site.example/stable\n  caCertificateFile: ca.pem\n');
    expect(message).toContain('chartRepository.url: expected an oci:// registry path when caCertificateFile is set');
    expect(message).toContain('gives the CA to its OCI registry client only');
    expect(message).toContain('https://charts.site.example/stable');
  });

  test('a CA file that does not exist, or holds a private key (which would be copied into a Secret)', () => {
    expect(refusal('  url: oci://registry.site.example/charts\n  caCertificateFile: missing.pem\n')).toMatch(/chartRepository\.caCertificateFile: expected a readable PEM file, found no file at .*missing\.pem/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-ca-'));
    try {
      const withKey = path.join(dir, 'with-key.pem');
      fs.writeFileSync(withKey, `${TEST_CA_PEM}-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n`);
      const message = refusal(`  url: oci://registry.site.example/charts\n  caCertificateFile: ${withKey}\n`);
      expect(message).toContain(`chartRepository.caCertificateFile: expected certificates only, found a private key ("-----BEGIN PRIVATE KEY-----") in ${withKey}`);
      expect(message).not.toContain('MIIEsecret');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an unknown field under chartRepository', () => {
    expect(refusal('  url: oci://registry.site.example/charts\n  insecure: true\n')).toContain('chartRepository');
  });

  test('a missing url', () => {
    expect(refusal('  caCertificateFile: ca.pem\n')).toContain('chartRepository.url');
  });
});
