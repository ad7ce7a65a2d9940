/**
 * A composing user can name every type the public API shows: the test walks the declarations of
 * the root entry point (lib/index.ts, what dist/lib/index.d.ts declares) through the type checker,
 * from each export into its props, public fields, parameters and return types, and fails on a
 * referenced type of this library that is not exported from the root (directly, or in one of the
 * namespaces of generated provider bindings), base types included. Helpers the constructs use
 * internally, with no documented use, stay out of the root.
 */
import * as path from 'path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const LIB = path.join(ROOT, 'lib') + path.sep;
const GEN = path.join(ROOT, 'lib', 'gen') + path.sep;

const fileOf = (s: ts.Symbol | undefined) => s?.declarations?.[0]?.getSourceFile().fileName ?? '';
const inLib = (s: ts.Symbol | undefined) => path.resolve(fileOf(s)).startsWith(LIB);
const inGen = (s: ts.Symbol | undefined) => path.resolve(fileOf(s)).startsWith(GEN);
const NAMED = ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.Enum | ts.SymbolFlags.TypeAlias;

function report(): { exported: number; missing: string[] } {
  const program = ts.createProgram([path.join(ROOT, 'lib', 'index.ts')], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, noEmit: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const resolve = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const root = checker.getSymbolAtLocation(program.getSourceFile(path.join(ROOT, 'lib', 'index.ts'))!)!;

  // what a user can import: the root's exports and, recursively, those of exported namespaces
  const exported = new Set<ts.Symbol>();
  const addModule = (module: ts.Symbol) => {
    for (const e of checker.getExportsOfModule(module).map(resolve)) {
      if (exported.has(e)) continue;
      exported.add(e);
      if (e.flags & ts.SymbolFlags.ValueModule) addModule(e);
    }
  };
  addModule(root);

  const missing = new Map<string, Set<string>>();
  const seen = new Set<ts.Type>();
  const note = (s: ts.Symbol, from: string) => {
    if (!inLib(s) || !(s.flags & NAMED) || exported.has(s)) return;
    const key = `${s.getName()} (${path.relative(ROOT, fileOf(s))})`;
    missing.set(key, (missing.get(key) ?? new Set()).add(from));
  };
  const publicProps = (t: ts.Type) =>
    checker.getPropertiesOfType(t).filter((p) => !(ts.getCombinedModifierFlags(p.valueDeclaration ?? p.declarations?.[0] ?? ({} as ts.Declaration)) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) && !p.getName().startsWith('#'));
  const walkSignature = (sig: ts.Signature, from: string) => {
    for (const p of sig.getParameters()) walk(checker.getTypeOfSymbol(p), from);
    walk(sig.getReturnType(), from);
  };
  function walk(t: ts.Type, from: string): void {
    if (seen.has(t)) return;
    seen.add(t);
    if (t.aliasSymbol) {
      note(t.aliasSymbol, from);
      for (const a of t.aliasTypeArguments ?? []) walk(a, from);
    }
    if (t.isUnionOrIntersection()) return t.types.forEach((u) => walk(u, from));
    const s = t.getSymbol();
    if (s && (s.flags & NAMED)) {
      note(s, from);
      if (!inLib(s) || inGen(s)) {
        // outside this library, or a generated binding (exported whole in its namespace): only its arguments
        if (t.flags & ts.TypeFlags.Object && (t as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) for (const a of checker.getTypeArguments(t as ts.TypeReference)) walk(a, from);
        return;
      }
      from = s.getName();
      // what it extends or implements is part of it: `ManifestDownload extends ManifestSource`
      if (s.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) for (const base of checker.getBaseTypes(checker.getDeclaredTypeOfSymbol(s) as ts.InterfaceType) ?? []) walk(base, from);
    }
    if (!(t.flags & ts.TypeFlags.Object)) return;
    if ((t as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) for (const a of checker.getTypeArguments(t as ts.TypeReference)) walk(a, from);
    if (s && !inLib(s) && !(s.flags & (ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.Function | ts.SymbolFlags.Method))) return;
    for (const p of publicProps(t)) walk(checker.getTypeOfSymbol(p), `${from}.${p.getName()}`);
    for (const sig of t.getCallSignatures()) walkSignature(sig, from);
    for (const sig of t.getConstructSignatures()) walkSignature(sig, from);
    const index = checker.getIndexInfosOfType(t);
    for (const i of index) walk(i.type, from);
  }
  for (const e of exported) {
    if (!inLib(e) || inGen(e)) continue;
    if (e.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.Enum | ts.SymbolFlags.TypeAlias)) walk(checker.getDeclaredTypeOfSymbol(e), e.getName());
    if (e.flags & ts.SymbolFlags.Value) walk(checker.getTypeOfSymbol(e), e.getName());
  }
  return { exported: exported.size, missing: [...missing].map(([k, from]) => `${k}, used by ${[...from].slice(0, 3).join(', ')}`).sort() };
}

describe('root exports', () => {
  const { exported, missing } = report();

  test('the walk sees the API (a sanity floor)', () => {
    expect(exported).toBeGreaterThan(100);
  });

  test('every type a public signature mentions is exported from the root', () => {
    expect(missing).toEqual([]);
  });

  test('internal helpers of the constructs, stacks and app are not part of it', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const root = require('../../lib') as Record<string, unknown>;
    const internal = ['keystoneUrlFromCatalog', 'renderCapoCloudsYaml', 'CLOUDS_SECRET_SUFFIX', 'existingKubeconfigPath', 'environmentNamesFrom'];
    expect(internal.filter((name) => name in root)).toEqual([]);
    // what a composition needs instead stays: the provider helpers and a cluster by name
    for (const name of ['environmentOpenstackProvider', 'managementKubernetesConnection', 'clusterNamed']) expect([name, typeof root[name]]).toEqual([name, 'function']);
  });
});
