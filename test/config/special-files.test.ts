/**
 * Files an environment names, and environment files themselves, read only as bounded regular
 * files: `existingManagementCluster.kubeconfigFile` was never checked (missing, a directory, a FIFO,
 * /dev/zero all validated; Terraform reads it at plan), clouds.yaml was read without the CA reader's
 * guards (a FIFO hung, /dev/zero aborted with std::bad_alloc, a directory blamed cloud.name with a
 * raw EISDIR), and environment files had no size limit (10 MB of newlines: 48 s, 1.2 GB).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadEnvironmentFile, parseEnvironment } from '../../lib/config';
import { cpuTimed } from '../support/cpu-time';
import { withDeployAccess } from '../support/deploy-access';
import { environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

const MIB = 1024 * 1024;
const CLOUDS = 'clouds:\n  lab:\n    auth:\n      auth_url: https://keystone.test:5000/v3\n    region_name: RegionOne\n';
// made when the file is read: the test tables below name these paths
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'special-files-'));
const fifo = path.join(dir, 'a.fifo');
execFileSync('mkfifo', [fifo]);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  fs.writeFileSync(path.join(dir, name), content);
  return path.join(dir, name);
}

/** Every kind of path that is no usable file, with what the message says it found. */
function specialPaths(): [string, string, string][] {
  return [
    ['missing', path.join(dir, 'missing'), `found no file at ${path.join(dir, 'missing')}`],
    ['a directory', dir, 'found a directory at'],
    ['a FIFO', fifo, 'found a FIFO at'],
    ['/dev/zero', '/dev/zero', 'found a device at /dev/zero'],
  ];
}

describe('existingManagementCluster.kubeconfigFile is checked at validate', () => {
  const env = (kubeconfig: string) => withDeployAccess(`cloud:\n  name: lab\n  authUrl: https://keystone.test:5000/v3\nexistingManagementCluster:\n  kubeconfigFile: ${JSON.stringify(kubeconfig)}\n`);
  const load = (kubeconfig: string) => parseEnvironment(env(kubeconfig), path.join(dir, 'lab.yaml'));

  test.each(specialPaths())('%s is refused naming the field, its line and the path', (_what, p, found) => {
    const e = refusalOf(() => load(p));
    expect(e.message).toMatch(new RegExp(`lab\\.yaml:5:\\d+: existingManagementCluster\\.kubeconfigFile: expected a (readable|regular) kubeconfig file, .*`));
    expect(e.message).toContain(found);
  });

  test('a file over 4 MiB, and one that is no YAML mapping, are refused', () => {
    const big = write('big.kubeconfig', `apiVersion: v1\n#${'x'.repeat(4 * MIB)}\n`);
    expect(refusalOf(() => load(big)).message).toContain(`existingManagementCluster.kubeconfigFile: expected a kubeconfig file of at most ${4 * MIB} bytes, found ${4 * MIB + 17} bytes at ${big}`);
    expect(refusalOf(() => load(write('list.kubeconfig', '- a\n- b\n'))).message).toContain('expected a kubeconfig (a YAML mapping with clusters, contexts and users), found a list');
    expect(refusalOf(() => load(write('empty.kubeconfig', ''))).message).toContain('found an empty file');
    expect(refusalOf(() => load(write('broken.kubeconfig', 'a: [\n'))).message).toMatch(/expected a kubeconfig \(YAML\), found a syntax error on line \d+/);
  });

  test('a kubeconfig, relative to the environment file, is accepted', () => {
    write('mgmt.kubeconfig', 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    expect(load('./mgmt.kubeconfig').spec.existingManagementCluster?.kubeconfigFile).toBe('./mgmt.kubeconfig');
  });
});

describe('clouds.yaml is read with the CA files\' guards', () => {
  const env = (cloudsFile: string) => withDeployAccess(`cloud:\n  name: lab\n  cloudsFile: ${JSON.stringify(cloudsFile)}\n`);
  const load = (cloudsFile: string) => parseEnvironment(env(cloudsFile), path.join(dir, 'lab.yaml'));

  test.each(specialPaths())('cloud.cloudsFile naming %s is refused at that field, naming the file (no EISDIR, no hang, no abort)', (_what, p, found) => {
    const e = refusalOf(() => load(p));
    expect(e.message).toMatch(/lab\.yaml:3:\d+: cloud\.cloudsFile: expected an? (existing|regular) clouds\.yaml/);
    expect(e.message).toContain(found);
    expect(e.message).not.toMatch(/EISDIR|cloud\.name/);
  });

  test('found through the search (OS_CLIENT_CONFIG_FILE), a directory or a FIFO is named under cloud.name', () => {
    const before = process.env.OS_CLIENT_CONFIG_FILE;
    try {
      for (const [p, found] of [[dir, 'a directory'], [fifo, 'a FIFO'], ['/dev/zero', 'a device']]) {
        process.env.OS_CLIENT_CONFIG_FILE = p;
        const e = refusalOf(() => parseEnvironment(withDeployAccess('cloud:\n  name: lab\n'), path.join(dir, 'lab.yaml')));
        expect(e.message).toMatch(/lab\.yaml:2:\d+: cloud\.name: expected a regular clouds\.yaml, found .* \(looking up cloud "lab"\)/);
        expect(e.message).toContain(`found ${found} at ${p}`);
      }
    } finally {
      if (before === undefined) delete process.env.OS_CLIENT_CONFIG_FILE;
      else process.env.OS_CLIENT_CONFIG_FILE = before;
    }
  });

  test('a clouds.yaml over 1 MiB is refused from its size', () => {
    const big = write('big-clouds.yaml', `${CLOUDS}#${'x'.repeat(MIB)}\n`);
    expect(refusalOf(() => load(big)).message).toContain(`cloud.cloudsFile: expected a clouds.yaml of at most ${MIB} bytes, found ${CLOUDS.length + MIB + 2} bytes at ${big}`);
  });

  test('80 000 entries load in linear time (the pairwise duplicate check took 37 s for 20 000), a duplicate is still found', () => {
    const entries = Array.from({ length: 80_000 }, (_, i) => `  c${i.toString(36)}: {}`).join('\n');
    const many = write('many-clouds.yaml', `${CLOUDS}${entries}\n`);
    const { cpuMs, result } = cpuTimed(() => load(many));
    expect(result.cloud.region).toBe('RegionOne');
    // about 1 s of CPU; the pairwise check needs over 30 s
    expect(cpuMs).toBeLessThan(15_000);
    const dup = write('dup-clouds.yaml', `${CLOUDS}${entries}\n  c0: {}\n`);
    expect(refusalOf(() => load(dup)).message).toMatch(/cloud\.name: expected a readable clouds\.yaml for cloud "lab", found: .*dup-clouds\.yaml cannot be read as YAML: line \d+: expected valid YAML, found a duplicate key "c0"/);
  }, 120_000);
});

test("a problem with a list item's file points at that item's line, not the file's first", () => {
  const text = withDeployAccess(`cloud:\n  name: lab\n  authUrl: https://keystone.test:5000/v3\nregistryMirrors:\n  - registry: docker.io\n    endpoints: [https://m.example]\n    caCertificateFile: ${JSON.stringify(dir)}\n`);
  expect(refusalOf(() => parseEnvironment(text, path.join(dir, 'lab.yaml'))).message).toMatch(/lab\.yaml:7:24: registryMirrors\[0\]\.caCertificateFile: expected a regular PEM file, found a directory/);
});

describe('environment files have a size limit, checked before parsing', () => {
  test('10 MB of newlines is refused at once, from a file and as text', () => {
    const file = write('newlines.yaml', '\n'.repeat(10_000_000));
    const { cpuMs } = cpuTimed(() => {
      const e = refusalOf(() => loadEnvironmentFile(file));
      expect(e.message).toBe(`Invalid environment file ${file} (1 problem):\n  ${file}:1:1: (file): expected an environment file of at most ${MIB} bytes, found 10000000 bytes at ${file}`);
      const text = refusalOf(() => parseEnvironment(`${environmentYaml('')}#${'é'.repeat(MIB / 2)}\n`, 'environments/big.yaml'));
      expect(text.message).toMatch(/big\.yaml:1:1: \(file\): expected an environment file of at most 1048576 bytes, found \d+ bytes/);
    });
    expect(cpuMs).toBeLessThan(5_000);
  });

  test('a FIFO or a device as the environment file is named, not read', () => {
    const fifoFile = path.join(dir, 'env-fifo.yaml');
    execFileSync('mkfifo', [fifoFile]);
    expect(refusalOf(() => loadEnvironmentFile(fifoFile)).message).toContain(`(file): expected a regular environment file, found a FIFO at ${fifoFile}`);
  });

  test('a file just under the limit loads', () => {
    const text = `${environmentYaml('')}#${'x'.repeat(MIB - environmentYaml('').length - 3)}\n`;
    expect(Buffer.byteLength(text)).toBe(MIB - 1);
    expect(parseEnvironment(text, 'environments/edge.yaml').name).toBe('edge');
  });
});
