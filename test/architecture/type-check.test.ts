/**
 * Jest transpiles without type-checking (jest.config.js) and `npm run build` checks only the
 * library, so a name that no longer resolves in a test or a test helper would first fail at run
 * time, in the slowest e2e suite. This compiles every TypeScript file of the project once.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..');

test('every TypeScript file of the project (library, tests, e2e helpers, scripts) type-checks', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.typecheck.json')], { cwd: root, encoding: 'utf8' });
  expect(r.error).toBeUndefined();
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
});
