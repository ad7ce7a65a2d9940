/**
 * Messages that said too little: record keys, zod's own wording, deep nesting repeated dozens of
 * times, UTF-16 files, `__proto__` through an alias, unknown tags. Each now names the rule, once.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError, environmentFromObject, loadEnvironmentFile, parseEnvironment } from '../../lib/config';
import { environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

const FILE = 'environments/unit.yaml';

function refusal(text: string, load: (t: string) => unknown = (t) => parseEnvironment(t, FILE)): EnvironmentConfigError {
  return refusalOf(() => load(text));
}

describe('messages state the rule', () => {
  test('a cluster name that is not a DNS label', () => {
    const e = refusal(environmentYaml('clusters:\n  Demo: {}\n'));
    expect(e.issues).toHaveLength(1);
    expect(e.message).toMatch(/unit\.yaml:\d+:3: clusters\.Demo: expected a cluster name: lowercase letters, digits and "-", starting with a letter and not ending with "-", found "Demo"$/m);
  });

  test('metadata longer than 255 characters, key and value', () => {
    const e = refusal(environmentYaml(`management:\n  waitForReady: false\n  metadata: {note: "${'v'.repeat(256)}", ${'k'.repeat(256)}: x}\n`));
    expect(e.message).toContain(`management.metadata.note: expected at most 255 characters (OpenStack's limit for metadata values), found "${'v'.repeat(57)}..." (256 characters)`);
    expect(e.message).toMatch(/management\.metadata\.k{256}: expected a key: at most 255 characters \(OpenStack's limit for metadata keys\), found "k{57}\.\.\." \(256 characters\)/);
    expect(e.message).not.toMatch(/Too big|Invalid key/);
  });

  test('an empty sshUsername and maxUnhealthyPercent 101', () => {
    expect(refusal(environmentYaml('management:\n  waitForReady: false\n  sshUsername: ""\n')).message).toMatch(/management\.sshUsername: expected a Linux user name: .*, found ""/);
    expect(refusal(environmentYaml('clusters:\n  demo:\n    machineHealthCheck: {maxUnhealthyPercent: 101}\n')).message).toMatch(
      /clusters\.demo\.machineHealthCheck\.maxUnhealthyPercent: expected a percentage from 0 to 100, found number 101/,
    );
  });

  test('zod\'s own bounds are worded like the others', () => {
    // kubeconfigFile carries no message of its own for its minimum length
    const e = refusal(environmentYaml('existingManagementCluster:\n  kubeconfigFile: ""\n'));
    expect(e.message).toMatch(/existingManagementCluster\.kubeconfigFile: expected a non-empty value, found ""/);
    expect(e.message).not.toMatch(/expected valid input|Too (big|small)/);
  });
});

describe('YAML the loader refuses once, clearly', () => {
  test('deep nesting (1400 levels of block style, the most that fits the size limit; 5000 of flow style): one message naming the limit', () => {
    const nested = Array.from({ length: 1400 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n';
    const e = refusal(nested);
    expect(e.issues).toHaveLength(1);
    expect(e.message).toMatch(/unit\.yaml:\d+:\d+: \(nesting\): expected mappings and lists nested at most 64 levels deep/);
    const flow = refusal(`a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(flow.issues).toHaveLength(1);
    const moderate = refusal(`a: ${'['.repeat(200)}${']'.repeat(200)}\n`);
    expect(moderate.message).toMatch(/\(nesting\): expected mappings and lists nested at most 64 levels deep, found deeper nesting/);
  });

  test('a UTF-16 file says so (with and without a byte order mark)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'utf16-'));
    const withBom = path.join(dir, 'bom.yaml');
    fs.writeFileSync(withBom, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# env\nprefix: capi\n', 'utf16le')]));
    expect(refusal(withBom, (f) => loadEnvironmentFile(f)).message).toContain(`${withBom}:1:1: (encoding): expected UTF-8 text, found UTF-16 (byte order mark FF FE); save the file as UTF-8`);
    const noBom = path.join(dir, 'nobom.yaml');
    fs.writeFileSync(noBom, Buffer.from('prefix: capi\n', 'utf16le'));
    expect(refusal(noBom, (f) => loadEnvironmentFile(f)).message).toContain(`${noBom}:1:2: (encoding): expected UTF-8 text, found NUL characters (a UTF-16 or binary file?)`);
  });

  test('__proto__ reached through an alias key is refused like a literal one', () => {
    const e = refusal(environmentYaml('x-anchor: &pk __proto__\nclusters:\n  ? *pk\n  : {}\n'));
    expect(e.message).toMatch(/unit\.yaml:\d+:\d+: __proto__: expected a name other than "__proto__"/);
  });

  test('a mapping used as a key is refused', () => {
    expect(refusal(environmentYaml('clusters:\n  ? {a: 1}\n  : {}\n')).message).toMatch(/\(key\): expected a plain key \(a name\), found a mapping or list used as a key/);
  });

  test('unknown tags are refused, naming the tag and its line', () => {
    const e = refusal(environmentYaml('prefix: !!js/function "function () {}"\n'.replace('prefix', 'x') + 'y: !custom 1\n'));
    expect(e.message).toMatch(/unit\.yaml:\d+:\d+: \(tag\): expected only the standard YAML tags \(!!str, !!int, !!bool, …\), found "!!js\/function"/);
    expect(e.message).toMatch(/\(tag\): expected only the standard YAML tags .*found "!custom"/);
  });
});

describe('messages show what came from the input cut and escaped', () => {
  const lines = (e: EnvironmentConfigError) => e.message.split('\n');

  test('a 500 000-character unknown key is shown cut, once per place, not echoed whole', () => {
    const key = 'k'.repeat(500_000);
    // an explicit key: a plain one may not be longer than 1024 characters
    const e = refusal(environmentYaml(`? ${key}\n: x\n`));
    expect(e.message.length).toBeLessThan(2_000);
    expect(e.message).toMatch(/unit\.yaml:\d+:\d+: k{497}\.\.\. \(500000 characters\): unknown field "k{77}\.\.\. \(500000 characters\)"/);
  });

  test('given in code (no size limit there), a 10 MB key is cut the same way', () => {
    const e = refusalOf(() => environmentFromObject('lab', { cloud: { name: 'c' }, ['x'.repeat(10_000_000)]: 1 } as never));
    expect(e.message.length).toBeLessThan(2_000);
  });

  test('a key with a newline forges no line of its own', () => {
    const e = refusal(environmentYaml('management:\n  metadata:\n    "a\\nunit.yaml:1:1: (root): all good": x\n'));
    expect(lines(e)).toHaveLength(e.issues.length + 1);
    expect(e.message).toContain('management.metadata.a\\nunit.yaml:1:1: (root): all good: expected a key without control characters');
  });

  test('a path with a newline forges no line of its own', () => {
    const e = refusal(environmentYaml('').replace('  region: RegionOne\n', '  region: RegionOne\n  caCertificateFile: "/nowhere\\n  environments/unit.yaml:1:1: (root): fine"\n'));
    expect(lines(e)).toHaveLength(e.issues.length + 1);
    expect(e.message).toContain('/nowhere\\n  environments/unit.yaml:1:1: (root): fine');
  });

  test('a file name with control characters is shown escaped', () => {
    const e = refusal(environmentYaml(''), (t) => parseEnvironment(t, 'environments/a\nb\u001b[2J.yaml'));
    expect(lines(e)).toHaveLength(e.issues.length + 1);
    expect(e.message).toContain('environments/a\\nb\\u001b[2J.yaml');
  });

  test('an upper-case extension is named as the problem, not the environment name', () => {
    const e = refusal(environmentYaml(''), (t) => parseEnvironment(t, 'environments/prod.YAML'));
    expect(e.message).toContain('prod.YAML: (file name): expected the extension .yaml or .yml in lowercase, found ".YAML" (synthesis reads only *.yaml and *.yml files and would skip this one)');
  });
});
