/**
 * import-tfvars against hostile input: a hosts file path outside the searched folders, template
 * directives, a `__proto__` variable, a memory limit that keeps the HCL parser's WebAssembly
 * from starting, oversized files and many variables. Each is refused or reported, naming the file;
 * nothing crashes, hangs or echoes a secret, and the work grows linearly with the file.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { convertTfvars } from '../../../lib/runtime/cli/tfvars/convert';
import { parseTfvars } from '../../../lib/runtime/cli/tfvars/parse';
import { cpuTimedAsync } from '../../support/cpu-time';
import { ROOT } from './support/cli-process';

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tfvars-hostile-'));
}

describe('import-tfvars with hostile input', () => {
  test('a registry hosts file outside the searched folders is not read, and its content not echoed', async () => {
    const outer = folder();
    const secret = path.join(outer, 'secret');
    fs.writeFileSync(secret, 'root:x:0:0:TOP-SECRET-LINE\n');
    const work = path.join(outer, 'a', 'b', 'c');
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(path.join(work, 'env.tfvars'), 'cloud_provider = "x"\ncontainerd_registry_files = { hosts = ["../../../secret"] }\n');
    const io = memoryIo(work);
    expect(await runCli(['import-tfvars', 'env.tfvars', '--out', 'env.yaml'], io)).toBe(0);
    const stderr = io.stderr.join('\n');
    expect(stderr).toMatch(/env\.tfvars:2: containerd_registry_files: hosts file \.\.\/\.\.\/\.\.\/secret is outside the folders searched \(.*\): not read; copy it next to the tfvars file/);
    expect(stderr + fs.readFileSync(path.join(work, 'env.yaml'), 'utf8')).not.toContain('TOP-SECRET-LINE');
  });

  test('template directives (%{ }) are reported, not carried', async () => {
    const parsed = await parseTfvars('t.tfvars', 'cloud_provider = "x"\nkind_flavor = "%{ if true }big%{ endif }"\n');
    const c = convertTfvars(parsed.values, { sourceName: 't.tfvars', fileBases: [os.tmpdir()] });
    expect(c.outcomes.find((o) => o.key === 'kind_flavor')).toMatchObject({ status: 'reported', notes: [expect.stringContaining('Terraform template directive')] });
    expect(JSON.stringify(c.environment)).not.toContain('%{');
  });

  test('{"__proto__": …} in .tfvars.json is refused with its line', async () => {
    await expect(parseTfvars('t.tfvars.json', '{\n  "cloud_provider": "x",\n  "__proto__": "x"\n}\n')).rejects.toThrow(
      't.tfvars.json:3: "__proto__" is not a variable of the old tool and is reserved in JavaScript objects; remove it',
    );
  });

  test('under a memory limit the WebAssembly failure is one clear error, not an unhandled rejection', () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'env.tfvars'), 'cloud_provider = "x"\n');
    const cli = `exec "${process.execPath}" -r "${path.join(__dirname, 'support', 'ts-register.js')}" "${path.join(ROOT, 'bin', 'capi-openstack.ts')}" import-tfvars env.tfvars --out env.yaml`;
    // WebAssembly reserves its memory up front: 1.5 GB of address space is enough for node, not for it
    const r = spawnSync('bash', ['-c', `ulimit -v 1500000; ${cli}`], { cwd: dir, encoding: 'utf8', timeout: 300_000, env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
    expect(r.stderr).not.toMatch(/Node\.js v\d|UnhandledPromiseRejection|^\s+at /m);
    expect(r.stderr).toMatch(/env\.tfvars: the HCL parser \(WebAssembly\) could not start: .*(Out of memory|could not allocate memory).*; raise the memory limit \(ulimit -v\) or convert the file to JSON/);
    expect(r.status).toBe(1);
    expect(fs.existsSync(path.join(dir, 'env.yaml'))).toBe(false);
  });

  test('a file over 1 MiB is refused before it is parsed, and nothing is written', async () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'big.tfvars'), `cloud_provider = "x"\n#${'x'.repeat(1024 * 1024)}\n`);
    const io = memoryIo(dir);
    expect(await runCli(['import-tfvars', 'big.tfvars', '--out', 'big.yaml'], io)).toBe(1);
    expect(io.stderr).toEqual([`error: expected a tfvars file of at most 1048576 bytes, found 1048599 bytes at ${path.join(dir, 'big.tfvars')}`]);
    expect(fs.existsSync(path.join(dir, 'big.yaml'))).toBe(false);
  });

  test('40 000 variables: each found on its line in linear time (a search per variable took 65 s for 20 000)', async () => {
    // JSON: no HCL parser in the time measured (it takes seconds of its own for this many)
    const json = JSON.stringify(Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`v${i}`, 'x'])), null, 1);
    const { cpuMs, result: parsed } = await cpuTimedAsync(() => parseTfvars('many.tfvars.json', json));
    // well under a second of CPU; the search per variable needs minutes
    expect(cpuMs).toBeLessThan(10_000);
    expect(Object.keys(parsed.lines)).toHaveLength(40_000);
    expect(parsed.lines.v39999).toBe(40_001);
    const hcl = await parseTfvars('many.tfvars', `cloud_provider = "x"\n${Array.from({ length: 40_000 }, (_, i) => `v${i} = "x"`).join('\n')}\n`);
    expect(Object.keys(hcl.lines)).toHaveLength(40_001);
    expect(hcl.lines.v39999).toBe(40_001);
  }, 120_000);

  test('20 000 unknown variables: each reported on stderr, the written file lists 200 and stays within the size limit', async () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'many.tfvars'), `cloud_provider = "x"\n${Array.from({ length: 20_000 }, (_, i) => `unknown_${i} = "x"`).join('\n')}\n`);
    const io = memoryIo(dir);
    expect(await runCli(['import-tfvars', 'many.tfvars', '--out', 'many.yaml'], io)).toBe(0);
    expect(io.stderr.filter((l) => /^many\.tfvars:\d+: unknown_\d+: unknown setting/.test(l))).toHaveLength(20_000);
    const written = fs.readFileSync(path.join(dir, 'many.yaml'), 'utf8');
    expect(written).toContain('#   … and 19800 more, each reported by import-tfvars on stderr');
    expect(Buffer.byteLength(written)).toBeLessThan(100_000);
  }, 120_000);

  test('a variable name with control characters is shown escaped, on one line', async () => {
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'ctl.tfvars.json'), JSON.stringify({ cloud_provider: 'x', 'a\nforged line\u001b[2J': 'x' }));
    const io = memoryIo(dir);
    expect(await runCli(['import-tfvars', 'ctl.tfvars.json', '--out', 'ctl.yaml'], io)).toBe(0);
    expect(io.stderr.join('\n')).toContain('ctl.tfvars.json: a\\nforged line\\u001b[2J: unknown setting');
    expect(io.stderr.some((l) => l.startsWith('forged line'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'ctl.yaml'), 'utf8')).not.toContain('\u001b');
  });
});
