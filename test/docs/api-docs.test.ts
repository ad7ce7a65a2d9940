/**
 * API documentation lint (see scripts/docs/api-docs-lint.js): every property of an exported `*Props`
 * interface has a doc comment, every optional one a `@default`, every exported class a doc comment.
 *
 * Known gaps live in test/docs/api-docs-pending.json. The list may only shrink: a new gap fails,
 * and so does a listed gap that is already fixed (remove its line).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { apiDocReport } = require('../../scripts/docs/api-docs-lint.js') as {
  apiDocReport(root?: string): { gaps: Gap[]; checked: string[] };
};

interface Gap {
  readonly key: string;
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

const ROOT = path.resolve(__dirname, '..', '..');
const PENDING_FILE = path.join(__dirname, 'api-docs-pending.json');

function readPending(): string[] {
  const parsed: unknown = JSON.parse(fs.readFileSync(PENDING_FILE, 'utf8'));
  if (!Array.isArray(parsed) || !parsed.every((k) => typeof k === 'string')) {
    throw new Error(`${path.relative(ROOT, PENDING_FILE)}: expected a JSON array of strings`);
  }
  return parsed as string[];
}

describe('API documentation of lib/index.ts', () => {
  const { gaps, checked } = apiDocReport(ROOT);
  const pending = readPending();

  it('has no undocumented Props property, optional property without @default or class without doc comment beyond the pending list', () => {
    const known = new Set(pending);
    const fresh = gaps.filter((g) => !known.has(g.key));
    const report = fresh.map((g) => `  ${g.file}:${g.line}  ${g.message}`).join('\n');
    if (fresh.length > 0) {
      throw new Error(
        `${fresh.length} API documentation gap(s); document them (a description, plus @default for optional props):\n${report}`,
      );
    }
  });

  it('lists only gaps that still exist in test/docs/api-docs-pending.json (the list can only shrink)', () => {
    const current = new Set(gaps.map((g) => g.key));
    const fixed = pending.filter((k) => !current.has(k));
    if (fixed.length > 0) {
      throw new Error(`already documented, remove from test/docs/api-docs-pending.json:\n${fixed.map((k) => `  ${k}`).join('\n')}`);
    }
    expect(new Set(pending).size).toBe(pending.length);
  });

  it('examines the public constructs and their props (guards against silently checking nothing)', () => {
    for (const name of ['ManagementStack', 'ManagementStackProps', 'WorkloadClusterStack', 'WorkloadClusterStackProps', 'ClusterPkiProps', 'ReadinessGate', 'EnvironmentGuard']) {
      expect(checked).toContain(name);
    }
    expect(gaps.every((g) => /^lib\/.+\.ts$/.test(g.file) && g.line > 0)).toBe(true);
  });
});

describe('api-docs lint itself', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-docs-lint-'));
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs', target: 'ES2022' } }));
    fs.writeFileSync(path.join(dir, 'lib', 'index.ts'), "export * from './things';\nexport { Hidden as Renamed } from './hidden';\n");
    fs.writeFileSync(
      path.join(dir, 'lib', 'things.ts'),
      [
        'interface BaseProps {',
        '  inherited?: string;',
        '}',
        'export interface WidgetProps extends BaseProps {',
        '  /** Documented and required. */',
        '  readonly good: string;',
        '  readonly bare: string;',
        '  /** Documented, but no default. */',
        '  readonly noDefault?: number;',
        '  /**',
        '   * Fully documented.',
        '   * @default 3',
        '   */',
        '  readonly full?: number;',
        '  /** @default 1 */',
        '  readonly onlyDefault?: number;',
        '}',
        'export interface Unchecked {',
        '  bare: string;',
        '}',
        '/** A documented class. */',
        'export class Widget {}',
        'export class Gadget {}',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'lib', 'hidden.ts'), 'export class Hidden {}\nexport interface HiddenProps { bare: string }\n');
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reports exactly the undocumented items, with file:line, including re-exports and inherited props', () => {
    const found = apiDocReport(dir).gaps.map((g) => `${g.file}:${g.line} ${g.message}`);
    expect(found.sort()).toEqual(
      [
        'lib/hidden.ts:1 Hidden: class without doc comment',
        'lib/things.ts:2 BaseProps.inherited: optional property without @default',
        'lib/things.ts:2 BaseProps.inherited: property without doc comment',
        'lib/things.ts:7 WidgetProps.bare: property without doc comment',
        'lib/things.ts:9 WidgetProps.noDefault: optional property without @default',
        'lib/things.ts:16 WidgetProps.onlyDefault: property without doc comment',
        'lib/things.ts:23 Gadget: class without doc comment',
      ].sort(),
    );
  });
});
