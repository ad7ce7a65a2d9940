/**
 * A cluster by name, typed (issue 37): `environment.clusters[0]` is `ResolvedCluster | undefined`
 * under `noUncheckedIndexedAccess` and a wrong index fails far from the cause; `clusterNamed`
 * returns the loaded cluster or names the environment, the name asked for and the names it has.
 */
import * as path from 'path';
import * as ts from 'typescript';
import { clusterNamed } from '../../lib/config/cluster-named';
import { environment, environmentYaml } from '../support/environment-text';

const acme = environment(environmentYaml('clusters:\n  web: {}\n  api: {}\n  spare:\n    controlPlane: { count: 0 }\n'), 'acme');

describe('clusterNamed', () => {
  test('returns the loaded object itself (what WorkloadCluster accepts)', () => {
    expect(clusterNamed(acme, 'api')).toBe(acme.clusters.find((c) => c.name === 'api'));
    expect(clusterNamed(acme, 'web').stackName).toBe('acme-web');
  });

  test('an unknown name lists the clusters the environment has', () => {
    expect(() => clusterNamed(acme, 'wbe')).toThrow('clusterNamed: expected the name of a cluster of environment "acme" ("web", "api"), found "wbe"');
  });

  test('a cluster switched off (no control-plane machines) says so', () => {
    expect(() => clusterNamed(acme, 'spare')).toThrow('found "spare" (cluster "spare" has controlPlane.count 0: no stack, nothing to build)');
  });

  test('no environment: named, not a TypeError', () => {
    expect(() => clusterNamed(undefined as never, 'web')).toThrow('clusterNamed: expected a loaded environment (from loadEnvironmentFile, parseEnvironment or environmentFromObject), found nothing');
  });

  test('its type needs no undefined check under noUncheckedIndexedAccess (the index does)', () => {
    const file = path.join(__dirname, '__strict-index.ts');
    const source = `import { clusterNamed } from '../../lib/config/cluster-named';
import { EnvironmentConfig, ResolvedCluster } from '../../lib/config/resolve';
declare const environment: EnvironmentConfig;
export const byName: ResolvedCluster = clusterNamed(environment, 'web');
export const byIndex: ResolvedCluster = environment.clusters[0];
`;
    const host = ts.createCompilerHost({});
    const read = host.readFile;
    host.readFile = (f) => (path.resolve(f) === file ? source : read(f));
    const exists = host.fileExists;
    host.fileExists = (f) => path.resolve(f) === file || exists(f);
    const program = ts.createProgram([file], { strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, types: [] }, host);
    const problems = ts.getPreEmitDiagnostics(program).filter((d) => d.file && path.resolve(d.file.fileName) === file).map((d) => `${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    expect(problems).toEqual(["5: Type 'ResolvedCluster | undefined' is not assignable to type 'ResolvedCluster'.   Type 'undefined' is not assignable to type 'ResolvedCluster'."]);
  });
});
