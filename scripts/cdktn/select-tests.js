#!/usr/bin/env node
/**
 * The unit-tier test files whose outcome can differ on cdktn: those that reach the framework
 * (`cdktf`, `constructs`, `@cdktf/*`) through their imports, followed file by file from the test
 * (relative imports of .ts/.js files, index files of folders). Config, runtime and script tests
 * never load the framework, so they run once, on cdktf.
 *
 *   select-tests.js <repo root>            prints the selected test files, one per line (relative)
 *   select-tests.js <repo root> --explain  also prints, per test file, the import chain to the framework
 *
 * The shared jest setup (test/setup-cdktf.ts, cdktf's matchers) is left out of the walk: every
 * test loads it, and on its own it only registers matchers.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const FRAMEWORK = /^(cdktf|constructs|@cdktf\/.+)(\/.*)?$/;
// import ... from '...'; export ... from '...'; import('...'); require('...'); jest.mock('...')
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bjest\.(?:mock|requireActual)\s*\(\s*)['"]([^'"]+)['"]/g;

function resolveRelative(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.js`, path.join(base, 'index.ts'), path.join(base, 'index.js')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined; // a JSON file or a generated one: cannot load the framework
}

/** Import chain from `file` to the framework, or undefined when it never reaches it. */
function chainToFramework(file, memo, visiting = new Set()) {
  if (memo.has(file)) return memo.get(file);
  if (visiting.has(file)) return undefined; // a cycle: the other path decides
  visiting.add(file);
  let found;
  const source = fs.readFileSync(file, 'utf8');
  for (const match of source.matchAll(SPECIFIER)) {
    const spec = match[1];
    if (FRAMEWORK.test(spec)) {
      found = [spec];
      break;
    }
    if (!spec.startsWith('.')) continue;
    const next = resolveRelative(file, spec);
    if (!next || /\.json$/.test(next)) continue;
    const rest = chainToFramework(next, memo, visiting);
    if (rest) {
      found = [path.relative(process.cwd(), next), ...rest];
      break;
    }
  }
  visiting.delete(file);
  memo.set(file, found);
  return found;
}

function testFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'e2e' && entry.name !== 'node_modules') out.push(...testFiles(full));
    } else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out.sort();
}

function main() {
  const root = path.resolve(process.argv[2] ?? '.');
  const explain = process.argv.includes('--explain');
  process.chdir(root);
  const memo = new Map();
  const all = testFiles(path.join(root, 'test'));
  let selected = 0;
  for (const file of all) {
    const chain = chainToFramework(file, memo);
    if (!chain) {
      if (explain) console.log(`skip ${path.relative(root, file)}`);
      continue;
    }
    selected++;
    console.log(explain ? `run  ${path.relative(root, file)}  (${chain.join(' -> ')})` : path.relative(root, file));
  }
  if (explain) console.log(`${selected} of ${all.length} test files reach the framework`);
}

main();
