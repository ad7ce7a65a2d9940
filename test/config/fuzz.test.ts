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
import { seededRandom as random } from '../support/seeded-random';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = ['example.yaml', 'local.yaml'].map((f) => ({ name: f, text: fs.readFileSync(path.join(ROOT, 'environments', f), 'utf8') }));
const CASES = 1200;
const SEED = 0x5eed11;

const VALUES = [
  '', '""', '0', '-1', '1e309', '99999999999999999999', 'null', '~', 'true', 'no', '[]', '{}', '[a, b]', '{ a: 1 }',
  '"\\n"', '"a\\u0000b"', '"\\t"', `"${'x'.repeat(5000)}"`, '"ü ünïcödé"', '*nowhere', '&a x', '!!binary aGk=', '!!str 1',
  '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8', 'v1.33.05', 'v1.99.x', 'https://x\\ny', '"http://p:3128\\nExec=/bin/x"',
  '__proto__', 'constructor', '"${jndi}"', "'$(id)'", '`id`', '0x10', '.inf', '2026-01-01', '"- a"',
];
const KEYS = ['__proto__', 'constructor', 'prefix', 'clusters', 'x', 'count', 'flavor', 'httpProxy', 'nodeCidr', 'addons', '"a b"'];

type Mutation = (lines: string[], r: () => number) => string[];
const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const at = (r: () => number, lines: string[]) => Math.floor(r() * lines.length);

const MUTATIONS: Record<string, Mutation> = {
  deleteLine: (l, r) => l.filter((_, i) => i !== at(r, l)),
  duplicateLine: (l, r) => {
    const i = at(r, l);
    return [...l.slice(0, i + 1), l[i], ...l.slice(i + 1)];
  },
  swapLines: (l, r) => {
    const a = at(r, l);
    const b = at(r, l);
    const out = [...l];
    [out[a], out[b]] = [out[b], out[a]];
    return out;
  },
  replaceValue: (l, r) => {
    const candidates = l.map((line, i) => ({ line, i })).filter((x) => /:\s*\S/.test(x.line) && !x.line.trim().startsWith('#'));
    if (candidates.length === 0) return l;
    const c = pick(r, candidates);
    const out = [...l];
    out[c.i] = c.line.replace(/:\s*.*$/, `: ${pick(r, VALUES)}`);
    return out;
  },
  replaceKey: (l, r) => {
    const i = at(r, l);
    const out = [...l];
    out[i] = l[i].replace(/^(\s*)[A-Za-z_][\w-]*:/, `$1${pick(r, KEYS)}:`);
    return out;
  },
  insertEntry: (l, r) => {
    const i = at(r, l);
    const indent = /^(\s*)/.exec(l[i])![1];
    return [...l.slice(0, i), `${indent}${pick(r, KEYS)}: ${pick(r, VALUES)}`, ...l.slice(i)];
  },
  reindent: (l, r) => {
    const i = at(r, l);
    const out = [...l];
    out[i] = r() < 0.5 ? ` ${l[i]}` : l[i].replace(/^ /, '');
    return out;
  },
  truncate: (l, r) => l.slice(0, at(r, l)),
};

/** Valid mutants, for the second property. */
const validCases: { label: string; env: EnvironmentConfig }[] = [];

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
        if (applied.some((m) => m !== 'deleteLine') && validCases.length < 12) validCases.push({ label, env });
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

  test('what validates also synthesizes', () => {
    expect(validCases.length).toBeGreaterThan(5);
    for (const { label, env } of validCases) {
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
