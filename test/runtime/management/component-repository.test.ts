/**
 * Where the controller upgrade takes its components from: with pinned manifests, a private
 * repository of exactly the pinned files, verified by SHA-256 (downloaded from a loopback release
 * server, or read from a local repository), or a refusal before anything changes; without pins,
 * the unverified sources, said so.
 */
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { manifestDownloads, manifestSources, ManifestVersions } from '../../../lib/config/provider-manifests';
import { parsePinnedManifests, prepareComponents } from '../../../lib/runtime/management/component-repository';
import { planUpgrade, UpgradeItem } from '../../../lib/runtime/management/upgrade-plan';

const VERSIONS: ManifestVersions = { clusterApi: 'v1.14.2', capo: 'v0.14.7', caaph: 'v0.6.4', orc: 'v2.4.0', certManager: 'v1.19.4' };
const body = (p: string) => `# served ${p}\nkind: List\n`;
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const paths = manifestSources(VERSIONS);
const CHECKSUMS = Object.fromEntries(paths.map((m) => [m.key, sha(body(m.path))]));
const tmp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** What a move of CAPO v0.14.6 → v0.14.7 asks for. */
const capoUpgrade = (to = 'v0.14.7'): readonly UpgradeItem[] =>
  planUpgrade(
    [
      { namespace: 'capi-system', providerName: 'cluster-api', type: 'CoreProvider', version: 'v1.14.2' },
      { namespace: 'capi-kubeadm-bootstrap-system', providerName: 'kubeadm', type: 'BootstrapProvider', version: 'v1.14.2' },
      { namespace: 'capi-kubeadm-control-plane-system', providerName: 'kubeadm', type: 'ControlPlaneProvider', version: 'v1.14.2' },
      { namespace: 'capo-system', providerName: 'openstack', type: 'InfrastructureProvider', version: 'v0.14.6' },
      { namespace: 'caaph-system', providerName: 'helm', type: 'AddonProvider', version: 'v0.6.4' },
    ],
    { clusterApi: 'v1.14.2', capo: to, caaph: 'v0.6.4' },
  ).items;

describe('the components of a controller upgrade', () => {
  let server: http.Server;
  let base: string;
  const requests: string[] = [];
  let tamper: string | undefined;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = (req.url ?? '').slice(1);
      requests.push(p);
      if (p.startsWith('redirect/')) res.writeHead(302, { location: `/${p.slice('redirect/'.length)}` }).end();
      else if (paths.some((m) => m.path === p)) res.writeHead(200).end(p === tamper ? `${body(p)}# one more line\n` : body(p));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('pinned: every provider and cert-manager from a private repository of verified files, ORC left out; the configuration names only it', async () => {
    const work = tmp('upgrade-work-');
    const lines: string[] = [];
    requests.length = 0;
    const config = await prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, `${base}/redirect`) }, capoUpgrade(), work, (l) => lines.push(l));
    expect(config).toBe(path.join(work, 'clusterctl.yaml'));
    const repo = path.join(work, 'repository');
    const parsed = parse(fs.readFileSync(config!, 'utf8'));
    expect(parsed.providers).toEqual([
      { name: 'cluster-api', type: 'CoreProvider', url: `file://${repo}/cluster-api/v1.14.2/core-components.yaml` },
      { name: 'kubeadm', type: 'BootstrapProvider', url: `file://${repo}/bootstrap-kubeadm/v1.14.2/bootstrap-components.yaml` },
      { name: 'kubeadm', type: 'ControlPlaneProvider', url: `file://${repo}/control-plane-kubeadm/v1.14.2/control-plane-components.yaml` },
      { name: 'openstack', type: 'InfrastructureProvider', url: `file://${repo}/infrastructure-openstack/v0.14.7/infrastructure-components.yaml` },
      { name: 'helm', type: 'AddonProvider', url: `file://${repo}/addon-helm/v0.6.4/addon-components.yaml` },
    ]);
    expect(parsed['cert-manager']).toEqual({ url: `file://${repo}/cert-manager/v1.19.4/cert-manager.yaml`, version: 'v1.19.4' });
    for (const m of paths.filter((p) => p.key !== 'orcInstall')) expect(fs.readFileSync(path.join(repo, m.path), 'utf8')).toBe(body(m.path));
    expect(fs.existsSync(path.join(repo, 'orc'))).toBe(false);
    expect(requests.filter((r) => !r.startsWith('redirect/')).sort()).toEqual(paths.filter((p) => p.key !== 'orcInstall').map((p) => p.path).sort());
    expect(lines).toEqual(['11 pinned component files verified by their SHA-256 (from their URLs)']);
  });

  test('pinned: a file that does not match its checksum is refused, naming key, URL and both checksums, and no configuration is written', async () => {
    const work = tmp('upgrade-work-');
    tamper = 'infrastructure-openstack/v0.14.7/infrastructure-components.yaml';
    try {
      await expect(prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, base) }, capoUpgrade(), work, () => undefined)).rejects.toThrow(
        `infrastructureComponents (${base}/${tamper}) has SHA-256 ${sha(`${body(tamper)}# one more line\n`)}, pinned ${CHECKSUMS.infrastructureComponents}: not used, nothing was changed`,
      );
    } finally {
      tamper = undefined;
    }
    expect(fs.existsSync(path.join(work, 'clusterctl.yaml'))).toBe(false);
  });

  test('pinned: a version the pins are not of is refused before anything is downloaded', async () => {
    requests.length = 0;
    await expect(prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, base) }, capoUpgrade('v0.14.8'), tmp('upgrade-work-'), () => undefined)).rejects.toThrow(
      /^infrastructure-openstack v0\.14\.8: not pinned in management\.providerManifests \(it pins .*infrastructure-openstack v0\.14\.7.*\); nothing was changed$/,
    );
    expect(requests).toEqual([]);
  });

  test('pinned with a local repository (the air-gapped path): its files are read and verified the same way, a changed one refused', async () => {
    const local = tmp('local-repository-');
    for (const m of paths) {
      fs.mkdirSync(path.join(local, path.dirname(m.path)), { recursive: true });
      fs.writeFileSync(path.join(local, m.path), body(m.path));
    }
    requests.length = 0;
    const lines: string[] = [];
    const config = await prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, base), repository: local }, capoUpgrade(), tmp('upgrade-work-'), (l) => lines.push(l));
    expect(parse(fs.readFileSync(config!, 'utf8')).providers).toHaveLength(5);
    expect(requests).toEqual([]);
    expect(lines).toEqual([`11 pinned component files verified by their SHA-256 (from ${local})`]);
    fs.appendFileSync(path.join(local, 'cluster-api/v1.14.2/metadata.yaml'), '# changed\n');
    await expect(prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, base), repository: local }, capoUpgrade(), tmp('upgrade-work-'), () => undefined)).rejects.toThrow(
      `coreMetadata (${local}/cluster-api/v1.14.2/metadata.yaml) has SHA-256`,
    );
    // a FIFO in its place is refused, never opened (opening it would hang the upgrade)
    fs.writeFileSync(path.join(local, 'cluster-api/v1.14.2/metadata.yaml'), body('cluster-api/v1.14.2/metadata.yaml'));
    const fifo = path.join(local, 'addon-helm/v0.6.4/addon-components.yaml');
    fs.rmSync(fifo);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(prepareComponents({ pinned: manifestDownloads(VERSIONS, CHECKSUMS, base), repository: local }, capoUpgrade(), tmp('upgrade-work-'), () => undefined)).rejects.toThrow(
      `addonComponents: ${fifo} is not a regular file; nothing was changed`,
    );
  });

  test('unpinned: the providers\' releases or a repository as it is, each with a warning that says so', async () => {
    const lines: string[] = [];
    expect(await prepareComponents({}, capoUpgrade(), tmp('upgrade-work-'), (l) => lines.push(l))).toBeUndefined();
    const local = tmp('local-repository-');
    const config = await prepareComponents({ repository: local }, capoUpgrade(), tmp('upgrade-work-'), (l) => lines.push(l));
    expect(parse(fs.readFileSync(config!, 'utf8')).providers[0]).toEqual({ name: 'cluster-api', type: 'CoreProvider', url: `file://${local}/cluster-api/latest/core-components.yaml` });
    expect(lines).toEqual([
      "WARNING: clusterctl downloads the components from the providers' GitHub releases without a checksum (management.providerManifests pins none)",
      `WARNING: the components come from ${local} unverified (management.providerManifests pins none)`,
    ]);
  });

  test('the pins as the management stack hands them over: anything but a known key, an http(s) URL, its path and a SHA-256 is refused', () => {
    const good = manifestDownloads(VERSIONS, CHECKSUMS, base).slice(2, 4);
    expect(parsePinnedManifests(JSON.stringify(good), 'UPGRADE_PROVIDER_MANIFESTS')).toEqual(good);
    const bad = (change: object) => () => parsePinnedManifests(JSON.stringify([{ ...good[0], ...change }]), 'UPGRADE_PROVIDER_MANIFESTS');
    expect(bad({ key: 'extra' })).toThrow(/^UPGRADE_PROVIDER_MANIFESTS\[0\]: expected a key of orcInstall, /);
    expect(bad({ url: 'file:///etc/passwd' })).toThrow('UPGRADE_PROVIDER_MANIFESTS[0]: expected an http(s) URL');
    expect(bad({ path: '../../etc/cluster-api/v1.14.2/core-components.yaml' })).toThrow('expected a path cluster-api/<version>/core-components.yaml');
    expect(bad({ path: 'infrastructure-openstack/v0.14.7/infrastructure-components.yaml' })).toThrow('expected a path cluster-api/<version>/core-components.yaml');
    expect(bad({ sha256: 'ABC' })).toThrow('expected a SHA-256');
    expect(() => parsePinnedManifests('{', 'UPGRADE_PROVIDER_MANIFESTS')).toThrow('UPGRADE_PROVIDER_MANIFESTS: expected a JSON list of pinned manifests, found text that is not JSON');
  });
});
