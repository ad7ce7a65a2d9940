/** `manifests`: the provider manifests of an environment and their checksums, fetched from a loopback mirror. */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { manifestSources, manifestVersions, PROVIDER_MANIFEST_FILES } from '../../../lib/config/provider-manifests';
import { parseEnvironment } from '../../../lib/config/load';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { ROOT } from './support/cli-process';

const exampleText = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const body = (p: string) => `# served ${p}\n`;
const PINNED_VERSIONS = '{ clusterApi: v1.12.10, capo: v0.14.7, caaph: v0.6.4 }';
const paths = manifestSources(manifestVersions(parseEnvironment(exampleText, 'environments/example.yaml').spec)).map((s) => s.path);

describe('capi-openstack manifests', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/redirect/')) res.writeHead(302, { location: url.slice('/redirect'.length) }).end();
      else if (/^\/[a-z-]+\/v\d+\.\d+\.\d+\/[a-z.-]+\.yaml$/.test(url)) res.writeHead(200).end(body(url.slice(1)));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function envDir(extra = ''): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-manifests-'));
    fs.writeFileSync(path.join(dir, 'lab.yaml'), extra ? exampleText.replace(/^management:\n/m, `management:\n${extra}`) : exampleText);
    return dir;
  }

  test('lists every file with its GitHub release URL and says that nothing is pinned', async () => {
    const dir = envDir();
    const io = memoryIo(dir);
    expect(await runCli(['manifests', path.join(dir, 'lab.yaml')], io)).toBe(0);
    const out = io.stdout.join('\n');
    expect(out).toMatch(/^coreComponents +cluster-api\/v1\.12\.10\/core-components\.yaml +https:\/\/github\.com\/kubernetes-sigs\/cluster-api\/releases\/download\/v1\.12\.10\/core-components\.yaml +-$/m);
    expect(out.split('\n').filter((l) => / -$/.test(l))).toHaveLength(PROVIDER_MANIFEST_FILES.length);
    expect(out).toContain('Not pinned: clusterctl fetches these unverified.');
  });

  test('--fetch prints the block that pins what the mirror serves (redirects followed), and the environment then loads', async () => {
    const dir = envDir();
    const io = memoryIo(dir);
    expect(await runCli(['manifests', path.join(dir, 'lab.yaml'), '--fetch', '--base-url', `${base}/redirect`], io)).toBe(0);
    const block = parse(io.stdout.join('\n'));
    expect(block.management.providerManifests.baseUrl).toBe(`${base}/redirect`);
    for (const [i, f] of PROVIDER_MANIFEST_FILES.entries()) expect(block.management.providerManifests.sha256[f.key]).toBe(sha256(body(paths[i])));
    // the printed block, pasted as it is, pins the environment's versions
    const pinned = exampleText.replace(/^management:\n/m, `${io.stdout.join('\n')}\n`);
    const spec = parseEnvironment(pinned, 'environments/lab.yaml').spec;
    expect(spec.management.providerManifests?.sha256.orcInstall).toBe(sha256(body(paths[0])));
    expect(spec.management.providerManifests?.versions).toEqual({ clusterApi: spec.versions.clusterApi, capo: spec.versions.capo, caaph: spec.versions.caaph });
  });

  test('--fetch of a pinned environment names each file the mirror serves differently and exits 1', async () => {
    const sums = PROVIDER_MANIFEST_FILES.map((f, i) => `      ${f.key}: ${f.key === 'certManager' ? 'a'.repeat(64) : sha256(body(paths[i]))}`);
    const dir = envDir(`  providerManifests:\n    baseUrl: ${base}\n    versions: ${PINNED_VERSIONS}\n    sha256:\n${sums.join('\n')}\n`);
    const io = memoryIo(dir);
    expect(await runCli(['manifests', path.join(dir, 'lab.yaml'), '--fetch'], io)).toBe(1);
    const mismatches = io.stderr.filter((l) => l.startsWith('MISMATCH'));
    expect(mismatches).toEqual([`MISMATCH certManager (${base}/${paths[1]}): pinned ${'a'.repeat(64)}, served ${sha256(body(paths[1]))}`]);
  });

  test('after a version bump the pins no longer load, and --fetch is how the new block is made: it prints it and says the file pins other versions', async () => {
    const sums = PROVIDER_MANIFEST_FILES.map((f, i) => `      ${f.key}: ${sha256(body(paths[i]))}`);
    const dir = envDir(`  providerManifests:\n    baseUrl: ${base}/bumped\n    versions: ${PINNED_VERSIONS}\n    sha256:\n${sums.join('\n')}\n`);
    const file = path.join(dir, 'lab.yaml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^( *capo:) v0\.14\.7$/m, '$1 v0.14.8'));
    const validate = memoryIo(dir);
    expect(await runCli(['validate', file], validate)).not.toBe(0);
    expect(validate.stderr.join('\n')).toMatch(/lab\.yaml:\d+:\d+: management\.providerManifests\.versions\.capo: expected v0\.14\.8, the version versions\.capo installs .* found "v0\.14\.7": pin the CAPO v0\.14\.8 manifests/);
    const listed = memoryIo(dir);
    expect(await runCli(['manifests', file], listed)).toBe(0);
    expect(listed.stdout.join('\n')).toContain('The pinned checksums are of Cluster API v1.12.10, CAPO v0.14.7, CAAPH v0.6.4, not of these versions');
    const io = memoryIo(dir);
    expect(await runCli(['manifests', file, '--fetch', '--base-url', `${base}/redirect`], io)).toBe(0);
    const block = parse(io.stdout.join('\n'));
    expect(block.management.providerManifests.versions).toEqual({ clusterApi: 'v1.12.10', capo: 'v0.14.8', caaph: 'v0.6.4' });
    expect(io.stderr.join('\n')).toContain('lab.yaml pins Cluster API v1.12.10, CAPO v0.14.7, CAAPH v0.6.4, not the versions of the environment: replace it with the one above');
  });

  test('a file the mirror does not have is an error naming the file and the status', async () => {
    const dir = envDir();
    const io = memoryIo(dir);
    expect(await runCli(['manifests', path.join(dir, 'lab.yaml'), '--fetch', '--base-url', `${base}/elsewhere`], io)).toBe(1);
    expect(io.stderr.join('\n')).toContain(`orcInstall: ${base}/elsewhere/${paths[0]} answered HTTP 404`);
  });
});
