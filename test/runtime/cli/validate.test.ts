/** `validate`: ok lines, the loader's precise messages, exit codes. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { ROOT, runCliProcess } from './support/cli-process';

const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-validate-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'environments', name), text);
  return dir;
}

describe('validate', () => {
  const invalid = example.replace('managementCidr: 10.0.0.0/24', 'managementCidr: 10.0.0.1/24').replace('count: 3', 'count: -1');
  const dir = project({ 'good.yaml': example, 'bad.yaml': invalid, 'environment.schema.json': '{}' });

  test('all files of ./environments: ok line for the valid one, precise problems for the other, exit 1', () => {
    const r = runCliProcess(['validate'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout.trim()).toBe('ok  environments/good.yaml (1 cluster)');
    expect(r.stderr).toContain('Invalid environment file environments/bad.yaml (2 problems):');
    expect(r.stderr).toMatch(/environments\/bad\.yaml:\d+:\d+: network\.managementCidr: expected an IPv4 CIDR with zero host bits, like 10\.0\.0\.0\/24 \(no leading zeros, no spaces\), found "10\.0\.0\.1\/24"/);
    expect(r.stderr).toMatch(/environments\/bad\.yaml:\d+:\d+: clusters\.demo\.nodeGroups\[0\]\.count: expected 0 or more, found number -1/);
    expect(r.stderr.trim().split('\n').pop()).toBe('1 of 2 environment files are invalid');
  });

  test('named environments and paths; only those are checked', () => {
    const r = runCliProcess(['validate', 'good', './environments/good.yaml'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['ok  environments/good.yaml (1 cluster)', 'ok  environments/good.yaml (1 cluster)']);
  });

  test('an end-of-life Kubernetes minor is valid but warned about, naming the date and the line', async () => {
    const old = project({ 'old.yaml': example.replace(/kubernetesVersion: v1\.36\.x/, 'kubernetesVersion: v1.33.x') });
    const io = memoryIo(old);
    expect(await runCli(['validate', 'old'], io)).toBe(0);
    expect(io.stdout).toEqual([expect.stringMatching(/^ok  .*old\.yaml \(1 cluster\)$/)]);
    const line = example.split('\n').findIndex((l) => l.includes('kubernetesVersion: v1.36.x')) + 1;
    expect(io.stderr).toEqual([
      expect.stringMatching(/^warning: .*old\.yaml:\d+:\d+: management\.providerManifests: not set: /),
      // the example shares one project (no management.cloud): see management-project.test.ts
      expect.stringMatching(/^warning: .*old\.yaml:\d+:\d+: management\.cloud: /),
      `warning: ${path.join(old, 'environments', 'old.yaml')}:${line}:24: clusters.demo.kubernetesVersion: Kubernetes v1.33 reached its end of life on 2026-06-28 and gets no security fixes; upgrade to v1.34.x next (one minor at a time; the default is v1.36.x)`,
    ]);
  });

  test('--dir points elsewhere', async () => {
    const io = memoryIo(ROOT);
    expect(await runCli(['validate', '--dir', path.join(dir, 'environments'), 'good'], io)).toBe(0);
    expect(io.stdout).toHaveLength(1);
    expect(io.stdout[0]).toMatch(/^ok  .*good\.yaml \(1 cluster\)$/);
  });

  test('an unknown environment name fails with one line that lists what exists', async () => {
    const io = memoryIo(dir);
    expect(await runCli(['validate', 'prod'], io)).toBe(1);
    expect(io.stderr).toEqual(['error: no environment "prod" in environments (found: bad, good)']);
  });

  test('a directory given as the file fails with one line, not an errno', async () => {
    const io = memoryIo(dir);
    expect(await runCli(['validate', 'environments/'], io)).toBe(1);
    expect(io.stderr).toEqual(['error: environment file environments/ is not a file (give a .yaml file or an environment name)']);
  });

  test('a missing environments directory fails with one line', async () => {
    const io = memoryIo(os.tmpdir());
    expect(await runCli(['validate', '--dir', 'no-such-dir'], io)).toBe(1);
    expect(io.stderr).toEqual(['error: environment directory no-such-dir does not exist (use --dir to point at it)']);
  });

  test('a file with an upper-case extension is named as such, wherever it is (it said the environments directory did not exist)', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-validate-ext-'));
    fs.mkdirSync(path.join(d, 'envs'));
    fs.writeFileSync(path.join(d, 'envs', 'prod.YAML'), example);
    for (const [cwd, arg] of [[d, 'envs/prod.YAML'], [path.join(d, 'envs'), 'prod.YAML']]) {
      const io = memoryIo(cwd);
      expect(await runCli(['validate', arg], io)).toBe(1);
      expect(io.stderr).toEqual([
        `error: environment file ${arg}: expected the extension .yaml or .yml in lowercase, found ".YAML" (synthesis reads only *.yaml and *.yml, so it would skip this file); rename it to prod.yaml`,
      ]);
    }
  });

  test('a name looked up where there is no environments directory says so', async () => {
    const io = memoryIo(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-validate-nodir-')));
    expect(await runCli(['validate', 'prod'], io)).toBe(1);
    expect(io.stderr).toEqual(['error: no environment "prod": the environment directory environments does not exist (give a path to a .yaml file, or use --dir to point at the directory)']);
  });

  test('control characters in arguments and file names are shown escaped, on one line', async () => {
    const io = memoryIo(dir);
    expect(await runCli(['validate', 'nowhere/a\nerror: forged\u001b[2J.yaml'], io)).toBe(1);
    expect(io.stderr).toEqual(['error: environment file nowhere/a\\nerror: forged\\u001b[2J.yaml does not exist']);
  });

  test('clusters with controlPlane.count 0 are counted as skipped', async () => {
    const d = project({ 'lab.yaml': example.replace('    controlPlane:\n      count: 1', '    controlPlane:\n      count: 0') });
    const io = memoryIo(d);
    expect(await runCli(['validate', '--dir', path.join(d, 'environments')], io)).toBe(0);
    expect(io.stdout[0]).toMatch(/lab\.yaml \(0 clusters, 1 with controlPlane\.count 0 skipped\)$/);
  });
});
