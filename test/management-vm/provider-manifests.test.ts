/**
 * Pinned provider manifests: the environment field, the URLs, the VM script that fetches and
 * verifies them (run for real against a loopback server) and what clusterctl-init.sh does with them.
 */
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as path from 'path';
import { parse } from 'yaml';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { CLUSTERCTL_CERT_MANAGER_VERSION, MANIFEST_KEYS, manifestDownloads, pinnedManifests, PROVIDER_MANIFEST_FILES } from '../../lib/config/provider-manifests';
import { renderFetchManifestsSh } from '../../lib/management-vm/scripts/fetch-manifests-sh';
import { renderLibSh } from '../../lib/management-vm/scripts/lib-sh';
import { fileText, render, tempDir } from './helpers';
import { bash, sha256, writeScripts } from './run-scripts';
import { withDeployAccess } from '../support/deploy-access';
import { DEFAULT_CONTROLLER_VERSIONS } from '../../lib/config/versions';

const VERSIONS = { clusterApi: 'v1.12.10', capo: 'v0.14.7', caaph: 'v0.6.4', orc: 'v2.4.0', certManager: CLUSTERCTL_CERT_MANAGER_VERSION };
const payload = (p: string) => `# release asset ${p}\nkind: List\n`;
const pathOf = (f: (typeof PROVIDER_MANIFEST_FILES)[number]) => `${f.label}/${VERSIONS[f.component]}/${f.file}`;
const CHECKSUMS = Object.fromEntries(PROVIDER_MANIFEST_FILES.map((f) => [f.key, sha256(payload(pathOf(f)))]));
const SCRIPTS = '/usr/local/lib/capi-bootstrap';

describe('management.providerManifests in the environment file', () => {
  const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
  const d = DEFAULT_CONTROLLER_VERSIONS;
  const pins = `    versions: { clusterApi: ${d.clusterApi}, capo: ${d.capo}, caaph: ${d.caaph} }\n`;
  const pinned = (sha: Record<string, string>, extra = '', versions = pins) =>
    `${base}management:\n  providerManifests:\n${extra}${versions}    sha256:\n${Object.entries(sha).map(([k, v]) => `      ${k}: ${v}`).join('\n')}\n`;
  const load = (text: string) => parseEnvironment(withDeployAccess(text), 'environments/pin.yaml');

  test('one checksum key per file, each file once', () => {
    expect(PROVIDER_MANIFEST_FILES.map((f) => f.key)).toEqual([...MANIFEST_KEYS]);
    expect(new Set(PROVIDER_MANIFEST_FILES.map(pathOf)).size).toBe(MANIFEST_KEYS.length);
  });

  test('pinned files resolve to the GitHub release assets of the environment\'s versions, or to a mirror', () => {
    const fromGithub = pinnedManifests(load(pinned(CHECKSUMS)).spec)!;
    expect(fromGithub.map((m) => m.url)).toContain('https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.14.2/core-components.yaml');
    expect(fromGithub.map((m) => m.url)).toContain('https://github.com/k-orc/openstack-resource-controller/releases/download/v2.4.0/install.yaml');
    expect(fromGithub.map((m) => m.url)).toContain(`https://github.com/cert-manager/cert-manager/releases/download/${CLUSTERCTL_CERT_MANAGER_VERSION}/cert-manager.yaml`);
    const mirrored = pinnedManifests(load(pinned(CHECKSUMS, '    baseUrl: https://mirror.example.com/capi/\n')).spec)!;
    expect(mirrored.find((m) => m.key === 'infrastructureComponents')).toEqual({
      key: 'infrastructureComponents',
      url: 'https://mirror.example.com/capi/infrastructure-openstack/v0.14.7/infrastructure-components.yaml',
      path: 'infrastructure-openstack/v0.14.7/infrastructure-components.yaml',
      sha256: CHECKSUMS.infrastructureComponents,
    });
    expect(pinnedManifests(load(base).spec)).toBeUndefined();
  });

  test('certManagerVersion moves only cert-manager\'s file; a malformed one is refused with its line', () => {
    const other = pinnedManifests(load(pinned(CHECKSUMS, '    certManagerVersion: v1.11.5\n')).spec)!;
    const defaults = pinnedManifests(load(pinned(CHECKSUMS)).spec)!;
    expect(other.find((m) => m.key === 'certManager')).toEqual({
      key: 'certManager',
      url: 'https://github.com/cert-manager/cert-manager/releases/download/v1.11.5/cert-manager.yaml',
      path: 'cert-manager/v1.11.5/cert-manager.yaml',
      sha256: CHECKSUMS.certManager,
    });
    expect(other.filter((m) => m.key !== 'certManager')).toEqual(defaults.filter((m) => m.key !== 'certManager'));
    expect(() => load(pinned(CHECKSUMS, '    certManagerVersion: v1.11\n'))).toThrow(/environments\/pin\.yaml:\d+.*management\.providerManifests\.certManagerVersion.*expected a version like v1\.12\.10.*"v1\.11"/s);
  });

  test('a missing checksum, a malformed one and an unknown key are each named with file and line', () => {
    const { coreMetadata: _dropped, ...missing } = CHECKSUMS;
    const text = pinned({ ...missing, addonComponents: 'ABC', extraFile: CHECKSUMS.orcInstall });
    let error: EnvironmentConfigError | undefined;
    try {
      load(text);
    } catch (e) {
      error = e as EnvironmentConfigError;
    }
    expect(error).toBeInstanceOf(EnvironmentConfigError);
    expect(error!.message).toMatch(/management\.providerManifests\.sha256\.coreMetadata/);
    expect(error!.message).toMatch(/environments\/pin\.yaml:\d+:\d+: management\.providerManifests\.sha256\.addonComponents: expected a SHA-256/);
    expect(error!.message).toMatch(/extraFile/);
  });

  test('the pins name the versions they are of: a versions change without new checksums is refused at validate, naming file, line and what to do', () => {
    const bumped = (text: string) => text.replace(/^cloud:/m, `versions:\n  capo: v0.14.8\n  caaph: ${d.caaph}\ncloud:`);
    expect(() => load(bumped(pinned(CHECKSUMS)))).toThrow(
      /environments\/pin\.yaml:\d+:\d+: management\.providerManifests\.versions\.capo: expected v0\.14\.8, the version versions\.capo installs \(the controller upgrade applies pinned components only, so the checksums here must be of that release\), found "v0\.14\.7": pin the CAPO v0\.14\.8 manifests \(`capi-openstack manifests <env> --fetch` prints the block\), or keep versions\.capo at v0\.14\.7/,
    );
    const repinned = pinned(CHECKSUMS, '', `    versions: { clusterApi: ${d.clusterApi}, capo: v0.14.8, caaph: ${d.caaph} }\n`);
    expect(pinnedManifests(load(bumped(repinned)).spec)!.find((m) => m.key === 'infrastructureComponents')!.path).toBe('infrastructure-openstack/v0.14.8/infrastructure-components.yaml');
    // pins written before they named their versions: what to add, and where it comes from
    expect(() => load(pinned(CHECKSUMS, '', ''))).toThrow(
      /environments\/pin\.yaml:\d+:\d+: management\.providerManifests\.versions: expected a mapping of the releases these checksums are of \(clusterApi, capo, caaph: `capi-openstack manifests <env> --fetch` prints the block with them\), found nothing/,
    );
  });

  test('without pins, validate warns that installs and upgrades apply unverified downloads; with them it does not', () => {
    const warning = (text: string) => load(text).warnings.filter((w) => w.path === 'management.providerManifests');
    expect(warning(base)).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^not set: the management VM's first install and every controller upgrade \(a change of versions\) apply the Cluster API provider components and cert-manager as downloaded from their GitHub releases, without a checksum/),
      }),
    ]);
    expect(warning(pinned(CHECKSUMS))).toEqual([]);
  });

  test('without the field the user data is what it always was: clusterctl fetches the providers itself', () => {
    const script = fileText(render().doc, `${SCRIPTS}/clusterctl-init.sh`);
    expect(script).toContain('readonly ORC_MANIFEST="https://github.com/k-orc/openstack-resource-controller/releases/download/$ORC_VERSION/install.yaml"');
    expect(script).not.toContain('--config');
    expect(() => fileText(render().doc, `${SCRIPTS}/fetch-manifests.sh`)).toThrow();
  });

  test('with it, the bootstrap fetches and verifies before the kind cluster, and installs only from the local repository', () => {
    const doc = render({ providerManifests: manifestDownloads(VERSIONS, CHECKSUMS) }).doc;
    const main = fileText(doc, `${SCRIPTS}/capi-bootstrap.sh`);
    expect(main.indexOf("run_step fetch-manifests 900 'fetch-manifests.sh'")).toBeGreaterThan(main.indexOf('run_step download-tools'));
    expect(main.indexOf('run_step fetch-manifests')).toBeLessThan(main.indexOf('run_step kind-cluster'));
    const init = fileText(doc, `${SCRIPTS}/clusterctl-init.sh`);
    expect(init).toContain('readonly ORC_MANIFEST="$REPO_DIR/orc/$ORC_VERSION/install.yaml"');
    expect(init).toContain('clusterctl init "${args[@]}" --config "$CLUSTERCTL_CONFIG" --wait-providers');
    expect(init).not.toContain('https://');
    expect(fileText(doc, `${SCRIPTS}/fetch-manifests.sh`)).toContain(`fetch_verified orc/v2.4.0/install.yaml https://github.com/k-orc/openstack-resource-controller/releases/download/v2.4.0/install.yaml ${CHECKSUMS.orcInstall}`);
  });
});

describe('fetch-manifests.sh against a loopback release server', () => {
  let server: http.Server;
  let base: string;
  const requests: string[] = [];
  let tamper: string | undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = (req.url ?? '').slice(1);
      requests.push(p);
      const known = PROVIDER_MANIFEST_FILES.some((f) => pathOf(f) === p);
      if (!known) res.writeHead(404).end();
      else res.writeHead(200).end(p === tamper ? `${payload(p)}# one more line\n` : payload(p));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function scriptIn(dir: string): string {
    writeScripts(dir, { 'lib.sh': renderLibSh(), 'fetch-manifests.sh': renderFetchManifestsSh(manifestDownloads(VERSIONS, CHECKSUMS, base)) });
    return path.join(dir, 'fetch-manifests.sh');
  }

  it('lays out a clusterctl local repository of verified files and a configuration that uses only it', async () => {
    const repo = tempDir('manifest-repo-');
    const script = scriptIn(tempDir('fetch-manifests-'));
    const r = await bash(script, [], { CAPI_BOOTSTRAP_REPOSITORY_DIR: repo });
    expect(r).toEqual({ code: 0, out: expect.stringContaining(`local clusterctl repository ready: ${repo} (12 files verified)`) });
    for (const f of PROVIDER_MANIFEST_FILES) expect(fs.readFileSync(path.join(repo, pathOf(f)), 'utf8')).toBe(payload(pathOf(f)));
    const config = parse(fs.readFileSync(path.join(repo, 'clusterctl.yaml'), 'utf8'));
    expect(config.providers).toEqual([
      { name: 'cluster-api', type: 'CoreProvider', url: `file://${repo}/cluster-api/v1.12.10/core-components.yaml` },
      { name: 'kubeadm', type: 'BootstrapProvider', url: `file://${repo}/bootstrap-kubeadm/v1.12.10/bootstrap-components.yaml` },
      { name: 'kubeadm', type: 'ControlPlaneProvider', url: `file://${repo}/control-plane-kubeadm/v1.12.10/control-plane-components.yaml` },
      { name: 'openstack', type: 'InfrastructureProvider', url: `file://${repo}/infrastructure-openstack/v0.14.7/infrastructure-components.yaml` },
      { name: 'helm', type: 'AddonProvider', url: `file://${repo}/addon-helm/v0.6.4/addon-components.yaml` },
    ]);
    expect(config['cert-manager']).toEqual({ url: `file://${repo}/cert-manager/${CLUSTERCTL_CERT_MANAGER_VERSION}/cert-manager.yaml`, version: CLUSTERCTL_CERT_MANAGER_VERSION });
    // clusterctl reads <label>/<version>/metadata.yaml next to each provider's components
    for (const p of config.providers) expect(fs.existsSync(path.join(path.dirname(p.url.slice('file://'.length)), 'metadata.yaml'))).toBe(true);

    const before = requests.length;
    const again = await bash(script, [], { CAPI_BOOTSTRAP_REPOSITORY_DIR: repo });
    expect(again.code).toBe(0);
    expect(requests.length).toBe(before);
  });

  it('stops at a file whose checksum does not match and leaves neither the file nor a configuration', async () => {
    const repo = tempDir('manifest-repo-');
    tamper = `infrastructure-openstack/v0.14.7/infrastructure-components.yaml`;
    try {
      const r = await bash(scriptIn(tempDir('fetch-manifests-')), [], { CAPI_BOOTSTRAP_REPOSITORY_DIR: repo });
      expect(r.code).not.toBe(0);
      expect(r.out).toContain(`${tamper}: CHECKSUM MISMATCH for ${base}/${tamper}: expected sha256 ${CHECKSUMS.infrastructureComponents}`);
      expect(fs.readdirSync(path.join(repo, 'infrastructure-openstack', 'v0.14.7'))).toEqual([]);
      expect(fs.existsSync(path.join(repo, 'clusterctl.yaml'))).toBe(false);
    } finally {
      tamper = undefined;
    }
  });
});
