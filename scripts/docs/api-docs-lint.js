#!/usr/bin/env node
/**
 * API documentation lint for the public library surface (everything exported from lib/index.ts,
 * directly or through `export *`):
 *   - every property of an exported interface whose name ends in `Props` has a doc comment,
 *   - every optional property of such an interface has a `@default` tag,
 *   - every exported class has a doc comment.
 * Properties inherited from other interfaces of this repository are checked where they are declared.
 *
 * Usage: node scripts/docs/api-docs-lint.js [--json]
 *   Prints one line per gap (file:line  key). Exit code 1 when there are gaps.
 *   --json prints the gap keys as a JSON array (the format of test/docs/api-docs-pending.json).
 * Used by test/docs/api-docs.test.ts, which compares the gaps with test/docs/api-docs-pending.json.
 */
'use strict';
const path = require('path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..', '..');

/** Doc comment text without tags, trimmed. */
function docText(checker, symbol) {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

function hasDefaultTag(checker, symbol) {
  return symbol.getJsDocTags(checker).some((t) => t.name === 'default');
}

function location(root, decl) {
  const sf = decl.getSourceFile();
  const { line } = sf.getLineAndCharacterOfPosition(decl.getStart(sf));
  return { file: path.relative(root, sf.fileName).split(path.sep).join('/'), line: line + 1 };
}

function isOwnSource(root, decl) {
  const file = path.relative(root, decl.getSourceFile().fileName);
  return !file.startsWith('..') && !file.split(path.sep).includes('node_modules') && !file.endsWith('.d.ts');
}

/**
 * `gaps`: all gaps, sorted by key. Each: { key, file, line, message }. `key` is stable across line
 * moves: "<file> <Owner>[.<property>]: <problem>". `checked`: names of the exported classes and
 * Props interfaces that were examined.
 */
function apiDocReport(root = ROOT) {
  root = path.resolve(root);
  const own = (decl) => isOwnSource(root, decl);
  const configPath = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(`cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  const entry = path.join(root, 'lib', 'index.ts');
  const program = ts.createProgram([entry], { ...parsed.options, noEmit: true, incremental: false, tsBuildInfoFile: undefined });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`cannot load ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} is not a module`);

  const gaps = new Map();
  const checked = [];
  const add = (decl, owner, problem) => {
    const loc = location(root, decl);
    const key = `${loc.file} ${owner}: ${problem}`;
    if (!gaps.has(key)) gaps.set(key, { key, file: loc.file, line: loc.line, message: `${owner}: ${problem}` });
  };

  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decls = (symbol.declarations ?? []).filter(own);
    if (decls.length === 0) continue;

    if (symbol.flags & ts.SymbolFlags.Class) {
      checked.push(symbol.getName());
      const decl = decls.find(ts.isClassDeclaration) ?? decls[0];
      if (!docText(checker, symbol)) add(decl, symbol.getName(), 'class without doc comment');
    }

    if (symbol.flags & ts.SymbolFlags.Interface && symbol.getName().endsWith('Props')) {
      checked.push(symbol.getName());
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      for (const prop of checker.getPropertiesOfType(type)) {
        const propDecl = (prop.declarations ?? []).find(own);
        if (!propDecl) continue;
        // Inherited members are reported under the interface that declares them.
        const parent = propDecl.parent;
        const ownerName = parent && (ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent)) && parent.name ? parent.name.text : symbol.getName();
        const owner = `${ownerName}.${prop.getName()}`;
        if (!docText(checker, prop)) add(propDecl, owner, 'property without doc comment');
        const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
        if (optional && !hasDefaultTag(checker, prop)) add(propDecl, owner, 'optional property without @default');
      }
    }
  }
  return { gaps: [...gaps.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), checked };
}

function findApiDocGaps(root = ROOT) {
  return apiDocReport(root).gaps;
}

module.exports = { apiDocReport, findApiDocGaps };

if (require.main === module) {
  const gaps = findApiDocGaps();
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(gaps.map((g) => g.key), null, 2) + '\n');
  } else {
    for (const g of gaps) process.stdout.write(`${g.file}:${g.line}  ${g.message}\n`);
    process.stderr.write(`${gaps.length} API documentation gap(s)\n`);
  }
  process.exit(gaps.length > 0 && !process.argv.includes('--json') ? 1 : 0);
}
