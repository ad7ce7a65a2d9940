/**
 * Fuzz tier: seeded mutations of the shipped environment files. Every case must end either in a
 * valid environment or in an EnvironmentConfigError naming the file (and a line for each issue
 * that comes from the file's content); never in any other exception. Fixed seed: a failure
 * reproduces with the case number it prints.
 */
import * as fs from 'fs';
import * as path from 'path';
import { EnvironmentConfig, EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { synthEnvironment } from '../stacks/support';
import { controlCharactersOf } from '../support/hostile-inputs';
import { seededRandom as random } from '../support/seeded-random';
import { MUTATIONS, pick } from '../support/yaml-mutations';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = ['example.yaml', 'local.yaml'].map((f) => ({ name: f, text: fs.readFileSync(path.join(ROOT, 'environments', f), 'utf8') }));
const CASES = 1200;
const SEED = 0x5eed11;

/** Every distinct valid mutant (mutations of comments give the same environment), for the second property. */
const validCases = new Map<string, { label: string; env: EnvironmentConfig }>();

describe('fuzzed environment files', () => {
  test(`${CASES} seeded mutations end in a valid environment or a located EnvironmentConfigError, never in another exception`, () => {
    const r = random(SEED);
    const outcomes = { valid: 0, rejected: 0 };
    const names = Object.keys(MUTATIONS);
    for (let n = 0; n < CASES; n++) {
      const source = pick(r, SOURCES);
      let lines = source.text.split('\n');
      const rounds = 1 + Math.floor(r() * 3);
      const applied: string[] = [];
      for (let k = 0; k < rounds; k++) {
        const m = pick(r, names);
        applied.push(m);
        if (lines.length > 0) lines = MUTATIONS[m](lines, r);
      }
      const text = lines.join('\n');
      const file = `environments/${source.name}`;
      const label = `case ${n} (${source.name}: ${applied.join(', ')})`;
      try {
        const env = parseEnvironment(text, file);
        outcomes.valid++;
        // a hostile value the mutations planted (DEL, C1, separators, …) never validates
        expect({ label, controls: controlCharactersOf(env.spec) }).toEqual({ label, controls: [] });
        const key = JSON.stringify({ ...env, warnings: undefined });
        if (!validCases.has(key)) validCases.set(key, { label, env });
      } catch (e) {
        if (!(e instanceof EnvironmentConfigError)) throw new Error(`${label}: ${(e as Error).constructor.name}: ${(e as Error).message.slice(0, 300)}\n--- file ---\n${text.slice(0, 2000)}`);
        expect({ label, file: e.file }).toEqual({ label, file });
        // issues from the file's content carry a line; the file-name check has none to give
        const unlocated = e.issues.filter((i) => i.line === undefined && i.path !== '(file name)');
        expect({ label, unlocated: unlocated.map((i) => `${i.path}: ${i.message}`.slice(0, 200)) }).toEqual({ label, unlocated: [] });
        expect({ label, long: e.message.length > 6000 }).toEqual({ label, long: false });
        outcomes.rejected++;
      }
    }
    // the generator is not vacuous: both outcomes occur often
    expect(outcomes.valid).toBeGreaterThan(CASES / 20);
    expect(outcomes.rejected).toBeGreaterThan(CASES / 4);
  });

  test('every distinct file that validates also synthesizes', () => {
    expect(validCases.size).toBeGreaterThan(15);
    for (const { label, env } of validCases.values()) {
      let stacks = 0;
      try {
        stacks = Object.keys(synthEnvironment(env).json).length;
      } catch (e) {
        throw new Error(`${label}: validated but did not synthesize: ${(e as Error).message.slice(0, 500)}`);
      }
      expect({ label, synthesized: stacks > 0 }).toEqual({ label, synthesized: true });
    }
  });
});
