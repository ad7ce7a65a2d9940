/** The command line itself: help texts, usage errors, exit codes, stdout/stderr separation (real processes). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, wholeNumberOption } from '../../../lib/runtime/cli/args';
import { importTfvarsSpec } from '../../../lib/runtime/cli/commands/import-tfvars';
import { orphansSpec } from '../../../lib/runtime/cli/commands/orphans';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { COMMANDS, runCli } from '../../../lib/runtime/cli/main';
import { ROOT, runCliProcess } from './support/cli-process';

describe('capi-openstack (process)', () => {
  test('--help lists every command and exits 0', () => {
    const r = runCliProcess(['--help'], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: capi-openstack <command>/);
    for (const name of ['validate', 'import-tfvars', 'footprint', 'kubeconfig']) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(r.stderr).toBe('');
  });

  test('no arguments prints the help and exits 2', () => {
    const r = runCliProcess([], ROOT);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Commands:');
  });

  test('an unknown command fails with one line on stderr, exit 2', () => {
    const r = runCliProcess(['deploy'], ROOT);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'error: capi-openstack: unknown command "deploy" (commands: validate, import-tfvars, footprint, kubeconfig, orphans, manifests, state, management) (see: capi-openstack --help)',
    ]);
  });

  test('an unknown option fails with one line naming the command, exit 2', () => {
    const r = runCliProcess(['footprint', 'example', '--verbose'], ROOT);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: capi-openstack footprint: unknown option --verbose (see: capi-openstack footprint --help)');
  });

  test('validate of the example environment exits 0 with an ok line on stdout (and the shared-project warning on stderr)', () => {
    const r = runCliProcess(['validate', 'example'], ROOT);
    expect(r.stderr.trim().split('\n')).toEqual([
      // the example leaves the provider manifests unpinned (no checksum can be established here), and says so
      expect.stringMatching(/^warning: environments\/example\.yaml:\d+:\d+: management\.providerManifests: not set: /),
      expect.stringMatching(/^warning: environments\/example\.yaml:\d+:\d+: management\.cloud: the management VM and its boot volume/),
    ]);
    expect(r.stdout.trim()).toBe('ok  environments/example.yaml (1 cluster)');
    expect(r.code).toBe(0);
  });
});

describe('help of each command', () => {
  test.each(COMMANDS.map((c) => [c.spec.name]))('%s --help', async (name) => {
    const io = memoryIo(ROOT);
    expect(await runCli([name, '--help'], io)).toBe(0);
    const text = io.stdout.join('\n');
    expect(text).toMatch(new RegExp(`^Usage: capi-openstack ${name}`));
    expect(text).toContain('Options:');
    expect(text).toContain('--help');
    const spec = COMMANDS.find((c) => c.spec.name === name)!.spec;
    for (const o of spec.options) expect(text).toContain(`--${o.name}`);
    expect(io.stderr).toEqual([]);
    // `help <command>` prints the same text
    const io2 = memoryIo(ROOT);
    expect(await runCli(['help', name], io2)).toBe(0);
    expect(io2.stdout).toEqual(io.stdout);
  });
});

describe('argument parser', () => {
  test('values in both spellings, switches, and -- ', () => {
    const a = parseArgs(importTfvarsSpec, ['x.tfvars', '--name', 'lab', '--out=environments/lab.yaml', '--force']);
    expect(a.positionals).toEqual(['x.tfvars']);
    expect(a.options).toEqual({ name: 'lab', out: 'environments/lab.yaml', force: true });
    expect(parseArgs(importTfvarsSpec, ['--', '--odd-name.tfvars']).positionals).toEqual(['--odd-name.tfvars']);
  });

  test('usage errors are one line with exit code 2', () => {
    const cases: [string[], string][] = [
      [[], 'missing argument: <environment-X.tfvars>'],
      [['a', 'b'], 'unexpected argument "b"'],
      [['a', '--name'], 'option --name needs a value (<env>)'],
      [['a', '--force=yes'], 'option --force takes no value'],
      [['a', '-f'], 'unknown option -f'],
    ];
    for (const [argv, message] of cases) {
      let err: unknown;
      try {
        parseArgs(importTfvarsSpec, argv);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ exitCode: 2, message: `capi-openstack import-tfvars: ${message} (see: capi-openstack import-tfvars --help)` });
    }
  });

  test('a whole-number option: absent, in range, or an error naming the option, the range and the value', () => {
    const settle = (...argv: string[]) => wholeNumberOption(parseArgs(orphansSpec, ['prod', ...argv]), 'settle-seconds', 0, 600);
    expect([settle(), settle('--settle-seconds', '0'), settle('--settle-seconds=600')]).toEqual([undefined, 0, 600]);
    for (const bad of ['601', '-1', '2.5', '10s', '1e2']) {
      expect(() => settle(`--settle-seconds=${bad}`)).toThrow(expect.objectContaining({ exitCode: 2, message: `--settle-seconds: expected a whole number from 0 to 600, found "${bad}"` }));
    }
  });
});

describe('--version', () => {
  test('prints the package version', async () => {
    const io = memoryIo(os.tmpdir());
    expect(await runCli(['--version'], io)).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(io.stdout).toEqual([pkg.version]);
  });
});
