/**
 * Two environment files that make the same stack name are refused naming both files and the field
 * (cdktf used to throw "There is already a Construct with name 'a-b-c'", naming no file).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { EnvironmentConfigError, loadEnvironments } from '../../lib/config';
import { memoryIo } from '../../lib/runtime/cli/io';
import { runCli } from '../../lib/runtime/cli/main';
import { environmentYaml } from '../stacks/support';
import { refusalOf } from '../support/refusal';

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-collisions-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'environments', name), text);
  return dir;
}

const withCluster = (name: string) => environmentYaml(`clusters:\n  ${name}:\n    apiAllowedCidrs: [198.51.100.0/24]\n`);

function loadError(dir: string): EnvironmentConfigError {
  return refusalOf(() => loadEnvironments(path.join(dir, 'environments')));
}

describe('stack names unique across environment files', () => {
  test('a.yaml with cluster b-c and a-b.yaml with cluster c: refused at the cluster of the later file, naming the other', () => {
    const dir = folder({ 'a.yaml': withCluster('b-c'), 'a-b.yaml': withCluster('c') });
    const e = loadError(dir);
    // a-b.yaml sorts first, so a.yaml's cluster is the second maker of "a-b-c"
    expect(e.file).toBe(path.join(dir, 'environments', 'a.yaml'));
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]).toMatchObject({ path: 'clusters.b-c', line: withCluster('b-c').split('\n').indexOf('  b-c:') + 1, column: 3 });
    expect(e.issues[0].message).toBe(
      `expected stack names unique across the environment files, found "a-b-c" (environment "a" + cluster "b-c") also made by ${path.join(dir, 'environments', 'a-b.yaml')} (clusters.c, environment "a-b"); rename the cluster or the environment file`,
    );
  });

  test('x.yaml beside x.yml: one environment twice, refused naming both files', () => {
    const dir = folder({ 'x.yaml': withCluster('demo'), 'x.yml': withCluster('demo') });
    const e = loadError(dir);
    expect(e.file).toBe(path.join(dir, 'environments', 'x.yml'));
    expect(e.message).toContain(`(file name): expected one file per environment, found ${path.join(dir, 'environments', 'x.yaml')} and ${path.join(dir, 'environments', 'x.yml')} both naming environment "x"`);
  });

  test('the app refuses before building any stack', () => {
    const dir = folder({ 'a.yaml': withCluster('b-c'), 'a-b.yaml': withCluster('c') });
    expect(() => new EnvironmentsApp({ environmentsDir: path.join(dir, 'environments'), onWarning: () => undefined })).toThrow(/found "a-b-c" .* also made by .*a-b\.yaml/);
  });

  test('validate reports it for the later file and exits 1; each file alone is ok', async () => {
    const dir = folder({ 'a.yaml': withCluster('b-c'), 'a-b.yaml': withCluster('c') });
    const io = memoryIo(dir);
    expect(await runCli(['validate'], io)).toBe(1);
    expect(io.stdout).toEqual([expect.stringMatching(/^ok  \S*environments\/a-b\.yaml \(1 cluster\)$/)]);
    expect(io.stderr.join('\n')).toMatch(/environments\/a\.yaml:\d+:3: clusters\.b-c: expected stack names unique across the environment files, found "a-b-c"/);
    const alone = memoryIo(dir);
    expect(await runCli(['validate', 'a'], alone)).toBe(0);
  });

  test('environments whose stacks differ load together', () => {
    const dir = folder({ 'a.yaml': withCluster('b'), 'a-b.yaml': withCluster('c') });
    expect(loadEnvironments(path.join(dir, 'environments')).map((e) => e.clusters[0].stackName)).toEqual(['a-b-c', 'a-b']);
  });
});
