import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

/** Shared by the architecture tests: reading our own sources and measuring them. */
export const ROOT = path.resolve(__dirname, '..', '..');

export function sourceFiles(dir: string, extensions = ['.ts', '.js']): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(rel, extensions);
    return extensions.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

export function lineCount(file: string): number {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** Relative module specifiers of a file, resolved to repository paths (without extension). */
export function relativeImports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import|require\()\s*['"](\.[^'"]*)['"]/g)].map((m) => m[1]);
  return specifiers.map((s) => path.normalize(path.join(path.dirname(file), s)));
}

export interface FunctionSize {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
  /** The callback of a jest describe/test/hook: a grouping of test code, not a function of ours. */
  readonly jestCallback: boolean;
}

// `suite` is the e2e files' describe-or-skip (skipped when the local services are absent).
const JEST_BLOCKS = /^(describe|suite|test|it|beforeAll|afterAll|beforeEach|afterEach)(\.(each|only|skip|concurrent))?$/;

function isJestCallback(node: ts.Node, source: ts.SourceFile): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(node as ts.Expression)) return false;
  // describe(...), test.each(table)(...), describe.each(table)(...)
  const callee = ts.isCallExpression(call.expression) ? call.expression.expression : call.expression;
  return JEST_BLOCKS.test(callee.getText(source).replace(/\s/g, ''));
}

/** Every function-like body (declarations, methods, arrows, constructors) and its length in lines. */
export function functionSizes(file: string): FunctionSize[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = (node as ts.FunctionLikeDeclaration).name;
      sizes.push({
        name: named ? named.getText(source) : ts.SyntaxKind[node.kind],
        line: start + 1,
        lines: end - start + 1,
        jestCallback: isJestCallback(node, source),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}
