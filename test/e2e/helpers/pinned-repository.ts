/**
 * The controller-upgrade e2e's supply chain: the local clusterctl repository
 * (scripts/local-capi/repository) pinned as an operator pins a mirror, and a user HOME whose
 * clusterctl configuration and overrides would swap components if clusterctl read them.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { manifestSources, ManifestVersions } from '../../../lib/config/provider-manifests';

/** The name of the ConfigMap the hostile override adds to the core components. */
export const PLANTED_CONFIG_MAP = 'planted-by-home-override';

/**
 * `management.providerManifests` for `versions` over the files of `repository`. ORC's manifest and
 * cert-manager.yaml are stand-ins written here: the local tier installs neither through clusterctl
 * (clusterctl treats a cert-manager without its labels as externally managed and never reads the
 * file), but the pins cover every file, as they do for a VM.
 */
export function pinRepository(repository: string, versions: ManifestVersions): Record<string, unknown> {
  const sources = manifestSources(versions);
  for (const s of sources.filter((s) => s.key === 'orcInstall' || s.key === 'certManager')) {
    fs.mkdirSync(path.join(repository, path.dirname(s.path)), { recursive: true });
    fs.writeFileSync(path.join(repository, s.path), `# stand-in for ${s.path}: the local tier does not install it through clusterctl\n`);
  }
  const sha256 = Object.fromEntries(sources.map((s) => [s.key, createHash('sha256').update(fs.readFileSync(path.join(repository, s.path))).digest('hex')]));
  return { certManagerVersion: versions.certManager, versions: { clusterApi: versions.clusterApi, capo: versions.capo, caaph: versions.caaph }, sha256 };
}

/**
 * A HOME as an attacker with write access to it would leave it: `~/.cluster-api/clusterctl.yaml`
 * sends the core provider elsewhere, and `~/.cluster-api/overrides` replaces its components with
 * the real ones plus a ConfigMap. clusterctl reads the overrides folder even with `--config`.
 */
export function hostileHome(dir: string, repository: string, clusterApiVersion: string): string {
  const home = path.join(dir, 'hostile-home');
  const core = path.join('cluster-api', clusterApiVersion, 'core-components.yaml');
  fs.mkdirSync(path.join(home, '.cluster-api', 'overrides', path.dirname(core)), { recursive: true });
  fs.writeFileSync(path.join(home, '.cluster-api', 'clusterctl.yaml'), stringify({ providers: [{ name: 'cluster-api', type: 'CoreProvider', url: 'file:///nonexistent/cluster-api/latest/core-components.yaml' }] }));
  const planted = stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PLANTED_CONFIG_MAP, namespace: 'capi-system' }, data: { from: '~/.cluster-api/overrides' } });
  fs.writeFileSync(path.join(home, '.cluster-api', 'overrides', core), `${fs.readFileSync(path.join(repository, core), 'utf8').replace(/\n*$/, '\n')}---\n${planted}`);
  return home;
}
