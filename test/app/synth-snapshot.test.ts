import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';

/**
 * Byte-for-byte proof for behaviour-preserving refactors: the synthesized JSON of every
 * environment file (the shipped ones and the fixtures that switch every option on) must equal the
 * committed snapshot. A deliberate change of output is recorded with
 * `UPDATE_SYNTH_SNAPSHOT=1 npx jest test/app/synth-snapshot.test.ts` and named in its commit.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const SNAPSHOT_DIR = path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'stacks');
const ENVIRONMENT_DIRS = [path.join(ROOT, 'environments'), path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'environments')];
const UPDATE = process.env.UPDATE_SYNTH_SNAPSHOT === '1';

/** Machine-specific paths (the checkout, the working directory) would make the snapshot local. */
function portable(text: string): string {
  return text.split(ROOT).join('<repo>').split(process.cwd()).join('<cwd>');
}

function synthesize(dir: string): Record<string, string> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-snapshot-'));
  const previous = process.cwd();
  process.chdir(dir); // relative paths in the fixtures (kubeconfig) resolve from their folder
  try {
    new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir } }).synth();
  } finally {
    process.chdir(previous);
  }
  const stacks: Record<string, string> = {};
  for (const name of fs.readdirSync(path.join(outdir, 'stacks'))) {
    stacks[name] = portable(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8'));
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  return stacks;
}

const synthesized: Record<string, string> = Object.assign({}, ...ENVIRONMENT_DIRS.map(synthesize));

if (UPDATE) {
  fs.rmSync(SNAPSHOT_DIR, { recursive: true, force: true });
  fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
  for (const [name, text] of Object.entries(synthesized)) fs.writeFileSync(path.join(SNAPSHOT_DIR, `${name}.tf.json`), text);
}

describe('synthesized output equals the committed snapshot', () => {
  test('the same stacks', () => {
    const recorded = fs.readdirSync(SNAPSHOT_DIR).map((f) => f.replace(/\.tf\.json$/, '')).sort();
    expect(Object.keys(synthesized).sort()).toEqual(recorded);
  });

  test.each(Object.keys(synthesized).sort())('%s is byte-for-byte unchanged', (stack) => {
    const recorded = fs.readFileSync(path.join(SNAPSHOT_DIR, `${stack}.tf.json`), 'utf8');
    expect(synthesized[stack]).toBe(recorded);
  });
});
