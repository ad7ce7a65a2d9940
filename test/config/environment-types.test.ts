import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { environmentJsonSchema } from '../../lib/config/json-schema';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { renderEnvironmentTypes, OUT } = require('../../scripts/docs/environment-types.js') as {
  renderEnvironmentTypes(input: unknown): string;
  OUT: string;
};

const ROOT = path.resolve(__dirname, '..', '..');

/** Type-checks `source` (a module in test/config) with the project's compiler options; returns the errors. */
function typeErrors(source: string): string[] {
  const file = path.join(ROOT, 'test', 'config', '__environment-types-check.ts');
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
  const host = ts.createCompilerHost({ ...options, noEmit: true, incremental: false });
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => (path.resolve(f) === file ? source : readFile(f));
  host.fileExists = ((exists) => (f: string) => path.resolve(f) === file || exists(f))(host.fileExists.bind(host));
  const program = ts.createProgram([file], { ...options, noEmit: true, incremental: false, composite: false }, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
}

describe('lib/config/environment-types.ts (EnvironmentInput with documentation)', () => {
  test('is what scripts/docs/environment-types.js generates from the schema (run it after changing the schema)', () => {
    expect(fs.readFileSync(OUT, 'utf8')).toBe(renderEnvironmentTypes(environmentJsonSchema('input')));
  });

  test('every field carries documentation, every optional one a @default', () => {
    const lines = fs.readFileSync(OUT, 'utf8').split('\n');
    const fields = lines.map((line, i) => ({ line, i })).filter(({ line }) => /^ {2}readonly /.test(line));
    expect(fields.length).toBeGreaterThan(60);
    expect(fields.filter(({ i }) => lines[i - 1] !== '   */').map(({ line }) => line)).toEqual([]);
    const optional = fields.filter(({ line }) => /^ {2}readonly \w+\?:/.test(line));
    expect(optional.filter(({ i }) => !/^ {3}\* @default /.test(lines[i - 2])).map(({ line }) => line)).toEqual([]);
  });

  test('the schema accepts everything the documented type allows (compiler check, which can fail)', () => {
    const check = (assignment: string) =>
      typeErrors(`import { z } from 'zod';
import { EnvironmentInput } from '../../lib/config/environment-types';
import { environmentSchema } from '../../lib/config/environment-schema';
declare const documented: EnvironmentInput;
declare const accepted: z.input<typeof environmentSchema>;
${assignment}
`);
    expect(check('export const ok: z.input<typeof environmentSchema> = documented;')).toEqual([]);
    // the documented type is stricter only where the schema refines (control-plane counts): a real check
    expect(check('export const stricter: EnvironmentInput = accepted;').join('\n')).toContain("'count'");
  });
});
