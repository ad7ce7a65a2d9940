/**
 * Add-on chart versions name one release: Helm reads the version as a constraint, so "", "*",
 * "latest", ">=0.0.0" or a partial "1.18" would silently unpin the chart.
 */
import { ADDON_CATALOGUE, AddonId, CINDER_CSI_CHART_VERSIONS, OCCM_CHART_VERSIONS, enabledAddons } from '../../lib/addons';
import { exactChartVersion } from '../../lib/addons/chart-versions';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { isExactChartVersion } from '../../lib/config/chart-version';
import { withDeployAccess } from '../support/deploy-access';

const FILE = 'environments/t.yaml';
const withAddons = (addons: string) =>
  withDeployAccess(`cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\nclusters:\n  web:\n    apiAllowedCidrs: [198.51.100.0/24]\n    addons:\n${addons}`);

function problemOf(text: string): string {
  try {
    parseEnvironment(text, FILE);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
}

const UNPINNING = ['""', '"*"', 'latest', '">=0.0.0"', '"1.18"', '"~1.18.5"', '"^1.18.5"', '"1.18.x"', '"1.18.5 || 1.19.0"', '"01.18.5"', '"1.18.5 "', '"v 1.18.5"', '"V1.18.5"'];

describe('add-on chart versions in an environment file', () => {
  test.each(UNPINNING)('%s is refused at every version field, naming file, line, field and what an exact version looks like', (value) => {
    const text = withAddons(
      `      cni: { type: cilium, version: ${value} }\n      metricsServer: { version: ${value} }\n      cinderCsi: { snapshotControllerVersion: ${value} }\n      certManager: { enabled: true, version: ${value} }\n`,
    );
    const message = problemOf(text);
    const expectation = 'expected an exact chart version like 1.18.5 or v1.19.4 (SemVer, optional leading "v"; "", "*", "latest", ranges and partial versions let Helm pick another release)';
    for (const [field, line] of [
      ['clusters.web.addons.cni.version', 8],
      ['clusters.web.addons.metricsServer.version', 9],
      ['clusters.web.addons.cinderCsi.snapshotControllerVersion', 10],
      ['clusters.web.addons.certManager.version', 11],
    ] as const) {
      expect(message).toMatch(new RegExp(`t\\.yaml:${line}:\\d+: ${field.replace(/\./g, '\\.')}: ${expectation.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, found "`));
    }
  });

  test('exact versions pass, with or without a leading "v", pre-release and build metadata included; a partial one does not', () => {
    expect(problemOf(withAddons('      cni: { type: cilium, version: "1.18" }\n'))).toContain('clusters.web.addons.cni.version: expected an exact chart version');
    const env = parseEnvironment(withAddons('      cni: { type: cilium, version: 1.18.6 }\n      certManager: { enabled: true, version: v1.19.4 }\n      metricsServer: { version: 3.13.1-rc.1+build.7 }\n'), FILE);
    expect(enabledAddons(env.clusters[0]).filter((a) => ['cilium', 'cert-manager', 'metrics-server'].includes(a.id))).toEqual([
      { id: 'cilium', version: '1.18.6' },
      { id: 'metrics-server', version: '3.13.1-rc.1+build.7' },
      { id: 'cert-manager', version: 'v1.19.4' },
    ]);
  });

  test('a hostile length is cut in the message', () => {
    const message = problemOf(withAddons(`      flux: { enabled: true, version: "${'1'.repeat(100_000)}" }\n`));
    expect(message).toContain('(100000 characters)');
    expect(message.length).toBeLessThan(2000);
  });
});

describe('the catalogue and the builder keep the same rule', () => {
  test('every pinned default is an exact version (the rule accepts what the catalogue pins)', () => {
    const pinned = [
      ...(Object.keys(ADDON_CATALOGUE) as AddonId[]).filter((id) => !['openstack-cloud-controller-manager', 'cinder-csi'].includes(id)).map((id) => ADDON_CATALOGUE[id].defaultVersion('v1.36')),
      ...Object.values(OCCM_CHART_VERSIONS),
      ...Object.values(CINDER_CSI_CHART_VERSIONS),
    ];
    expect(pinned.filter((v) => !isExactChartVersion(v))).toEqual([]);
    // both forms occur in the catalogue, which is why a leading "v" is accepted
    expect(pinned.some((v) => v.startsWith('v')) && pinned.some((v) => !v.startsWith('v'))).toBe(true);
  });

  test('the builder refuses a spec built in code that unpins a chart', () => {
    const env = parseEnvironment(withAddons('      flux: true\n'), FILE);
    const cluster = env.clusters[0];
    const unpinned = { ...cluster, spec: { ...cluster.spec, addons: { ...cluster.spec.addons, flux: { ...cluster.spec.addons.flux, version: 'latest' } } } };
    expect(() => enabledAddons(unpinned)).toThrow('chart flux2: expected an exact chart version like 1.18.5 or v1.19.4');
    expect(() => exactChartVersion('cilium', '>=0.0.0')).toThrow('found ">=0.0.0"');
    expect(exactChartVersion('cilium', '1.18.5')).toBe('1.18.5');
  });
});
