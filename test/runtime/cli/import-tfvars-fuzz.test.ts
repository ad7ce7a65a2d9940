/**
 * Fuzz tier for `import-tfvars`: seeded mutations of the old tool's settings file (the filled
 * fixture). Each case either writes an environment file that validates, or fails with a CliError
 * that names the source file; never any other exception, never a file written on failure.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../../lib/runtime/cli/args';
import { importTfvars, importTfvarsSpec } from '../../../lib/runtime/cli/commands/import-tfvars';
import { CliError } from '../../../lib/runtime/cli/errors';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { loadEnvironmentFile } from '../../../lib/config/load';
import { seededRandom as random } from '../../support/seeded-random';

const SOURCE = fs.readFileSync(path.join(__dirname, 'fixtures', 'old-tool', 'environment-lab.tfvars'), 'utf8');
const CASES = 300;
const SEED = 0x7f00d;

const VALUES = ['""', '0', '-1', '1e309', 'true', 'null', '[]', '{}', '["a", 1]', '{ a = "b" }', '"x\\ny"', '"${var.x}"', `"${'y'.repeat(3000)}"`, '"10.0.0.0/33"', '"v1.33.05"', '"http://p:3128\\nExec=/bin/x"', '"__proto__"', '"$(id)"'];

describe('fuzzed tfvars files', () => {
  test(`${CASES} seeded mutations of the old settings file import cleanly or fail with a CliError naming the file`, async () => {
    const r = random(SEED);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfvars-fuzz-'));
    const source = path.join(dir, 'lab.tfvars');
    const out = path.join(dir, 'environments', 'lab.yaml');
    const outcomes = { imported: 0, refused: 0 };
    for (let n = 0; n < CASES; n++) {
      let lines = SOURCE.split('\n');
      const i = Math.floor(r() * lines.length);
      const op = Math.floor(r() * 4);
      if (op === 0) lines = lines.filter((_, k) => k !== i);
      else if (op === 1) lines[i] = lines[i].replace(/=\s*.*$/, `= ${VALUES[Math.floor(r() * VALUES.length)]}`);
      else if (op === 2) lines = [...lines.slice(0, i), `${['node_cidr', 'prefix', 'http_proxy', 'kubernetes_version', 'worker_count', 'bogus'][Math.floor(r() * 6)]} = ${VALUES[Math.floor(r() * VALUES.length)]}`, ...lines.slice(i)];
      else lines = lines.slice(0, i);
      fs.writeFileSync(source, lines.join('\n'));
      fs.rmSync(out, { force: true });
      const label = `case ${n} (op ${op} at line ${i + 1})`;
      try {
        await importTfvars(parseArgs(importTfvarsSpec, [source, '--out', out, '--cloud', 'lab']), memoryIo(dir));
        expect({ label, valid: loadEnvironmentFile(out).name }).toEqual({ label, valid: 'lab' });
        outcomes.imported++;
      } catch (e) {
        if (!(e instanceof CliError)) throw new Error(`${label}: ${(e as Error).constructor.name}: ${(e as Error).message.slice(0, 300)}`);
        expect({ label, namesFile: e.message.includes('lab.tfvars') }).toEqual({ label, namesFile: true });
        expect({ label, written: fs.existsSync(out) }).toEqual({ label, written: false });
        outcomes.refused++;
      }
    }
    expect(outcomes.imported).toBeGreaterThan(CASES / 10);
    expect(outcomes.refused).toBeGreaterThan(CASES / 10);
  }, 120_000);
});
