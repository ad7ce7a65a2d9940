/**
 * Loading grows linearly with the file: 100 000 metadata keys took 85 s and 100 000 unknown
 * top-level keys 202 s (the parser's duplicate-key check and the position of each problem scanned
 * every key). The bounds are on CPU time and generous; quadratic work misses them by far.
 * Keys are short (base 36) so that 100 000 of them fit the 1 MiB size limit of environment files.
 */
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { cpuTimed } from '../support/cpu-time';
import { environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

const KEYS = 100_000;
const BOUND_CPU_MS = 40_000;

describe(`${KEYS} keys load in linear time`, () => {
  test('metadata keys: the environment loads', () => {
    const text = environmentYaml(`management:\n  waitForReady: false\n  metadata: {${Array.from({ length: KEYS }, (_, i) => `k${i.toString(36)}: v`).join(',')}}\n`);
    const { cpuMs, result } = cpuTimed(() => parseEnvironment(text, 'environments/big.yaml'));
    expect(Object.keys(result.spec.management.metadata)).toHaveLength(KEYS);
    expect(cpuMs).toBeLessThan(BOUND_CPU_MS);
  }, 120_000);

  test('unknown top-level keys: every one refused, the first 20 shown with lines, then a count', () => {
    const text = `${environmentYaml('')}${Array.from({ length: KEYS }, (_, i) => `u${i.toString(36)}: v`).join('\n')}\n`;
    const { cpuMs, result } = cpuTimed(() => {
      try {
        parseEnvironment(text, 'environments/big.yaml');
      } catch (e) {
        return e;
      }
      return undefined;
    });
    expect(cpuMs).toBeLessThan(BOUND_CPU_MS);
    const e = result as EnvironmentConfigError;
    expect(e).toBeInstanceOf(EnvironmentConfigError);
    expect(e.issues).toHaveLength(KEYS);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(22);
    expect(lines[1]).toMatch(/^ {2}environments\/big\.yaml:\d+:1: u0: unknown field "u0"/);
    expect(lines[21]).toBe(`  … and ${KEYS - 20} more problems in environments/big.yaml`);
  }, 120_000);

  test('duplicate keys are still refused, at the second one', () => {
    const e = refusalOf(() => parseEnvironment(`${environmentYaml('')}prefix: a\nprefix: b\n`, 'environments/dup.yaml'));
    expect(e.message).toMatch(/dup\.yaml:\d+:1: \(root\): expected valid YAML, found a duplicate key "prefix" \(each key once per mapping\)/);
  });
});
