import * as fs from 'fs';
import * as path from 'path';
import { ENVIRONMENT_DIRS, FRAMEWORK, ROOT, frameworkNeutral, synthesize } from './synthesize';

/**
 * Byte-for-byte proof for behaviour-preserving refactors: the synthesized JSON of every
 * environment file (the shipped ones and the fixtures that switch every option on) must equal the
 * committed snapshot. A deliberate change of output is recorded with
 * `UPDATE_SYNTH_SNAPSHOT=1 npx jest test/app/synth-snapshot.test.ts` and named in its commit.
 */
const SNAPSHOT_DIR = path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'stacks');
const UPDATE = process.env.UPDATE_SYNTH_SNAPSHOT === '1';

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

  test.each(Object.keys(synthesized).sort())('%s is unchanged (byte for byte on cdktf, value for value on cdktn)', (stack) => {
    const recorded = fs.readFileSync(path.join(SNAPSHOT_DIR, `${stack}.tf.json`), 'utf8');
    // the snapshot is cdktf's; the fork writes its own version into the metadata and formats `{}` its way
    if (FRAMEWORK.name === 'cdktf') expect(synthesized[stack]).toBe(recorded);
    else expect(frameworkNeutral(synthesized[stack])).toEqual(frameworkNeutral(recorded));
  });
});
