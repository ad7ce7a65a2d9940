import * as path from 'path';
import { functionSizes, lineCount, sourceFiles } from './code-shape';

/**
 * Files stay short enough to read in one go and functions short enough to hold in one's head.
 * Generated bindings are exempt; jest's describe/test callbacks group tests and are measured as a
 * whole file instead.
 */
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

const files = ['lib', 'bin', 'scripts', 'test']
  .flatMap((dir) => sourceFiles(dir))
  .concat(['main.ts'])
  .filter((f) => !f.startsWith(path.join('lib', 'gen') + path.sep));

describe('size limits of our own code', () => {
  test(`no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((f) => ({ f, n: lineCount(f) })).filter(({ n }) => n > MAX_FILE_LINES);
    expect(long.map(({ f, n }) => `${f}: ${n} lines`)).toEqual([]);
  });

  test(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => functionSizes(f).filter((s) => !s.jestCallback && s.lines > MAX_FUNCTION_LINES).map((s) => `${f}:${s.line} ${s.name}: ${s.lines} lines`));
    expect(long).toEqual([]);
  });

  test('the measure works (a known long function and a jest callback are seen as such)', () => {
    const own = functionSizes(path.join('test', 'architecture', 'size-limits.test.ts'));
    expect(own.some((s) => s.jestCallback)).toBe(true);
    expect(own.every((s) => s.lines >= 1)).toBe(true);
  });
});
