import * as fs from 'fs';
import * as path from 'path';
import { ROOT, relativeImports, sourceFiles } from './code-shape';

/**
 * The folders of lib/ are layers; an import may only point to a lower layer, never sideways or up.
 * Synthesis climbs config → pure builders → constructs → stacks → app; the runtime (readiness
 * check, leftovers cleanup, CLI) stands beside it and shares only config (and naming) with it.
 */
const RANK: Readonly<Record<string, number>> = {
  config: 0,
  objects: 1, // plain Kubernetes object shapes and labels
  gen: 1, // generated provider bindings
  'management-vm': 2, // pure builders
  capi: 2,
  addons: 2,
  kubeconfig: 2,
  terraform: 3, // Terraform-level helpers of the constructs
  openstack: 4, // constructs
  kube: 4,
  pki: 4,
  clusters: 5, // ManagementCluster, WorkloadCluster
  stacks: 6,
  app: 7,
  'index.ts': 8,
  'runtime/kit': 1, // runtime: HTTP client, Keystone login, CLI harness
  'runtime/readiness': 2,
  'runtime/cleanup': 2,
  'runtime/orphans': 2,
  'runtime/state': 2, // shared state store: S3 signing, locks, EC2 credentials
  'runtime/management': 2.5, // backup and restore of the management cluster (over the readiness kit)
  'runtime/cli': 3,
};
/** What the runtime may take from the synthesis side. */
const RUNTIME_MAY_IMPORT = new Set(['config']);
/** Layers that must stay free of cdktf: plain functions over plain data. */
const PURE = new Set(['config', 'objects', 'management-vm', 'capi', 'addons', 'kubeconfig', 'runtime/kit', 'runtime/readiness', 'runtime/cleanup', 'runtime/orphans', 'runtime/state', 'runtime/management', 'runtime/cli']);

function layerOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] !== 'lib') return '(outside lib)';
  if (parts[1] === 'runtime') return parts.length > 3 ? `runtime/${parts[2]}` : 'runtime/kit';
  return parts[1];
}

const files = sourceFiles('lib', ['.ts']).filter((f) => !f.startsWith(path.join('lib', 'gen')));

describe('layers of lib/', () => {
  test('every folder of lib/ has a rank', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((l) => RANK[l] === undefined);
    expect(unknown).toEqual([]);
  });

  test('imports only point down', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of relativeImports(file)) {
        const to = layerOf(fs.existsSync(path.join(ROOT, target)) && fs.statSync(path.join(ROOT, target)).isDirectory() ? path.join(target, 'index.ts') : `${target}.ts`);
        if (to === from) continue;
        const runtimeToSynth = from.startsWith('runtime/') && !to.startsWith('runtime/') && !RUNTIME_MAY_IMPORT.has(to);
        const synthToRuntime = !from.startsWith('runtime/') && to.startsWith('runtime/') && from !== 'index.ts';
        if (runtimeToSynth || synthToRuntime || !(RANK[to] < RANK[from])) wrong.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('pure layers import no cdktf', () => {
    const wrong = files
      .filter((f) => PURE.has(layerOf(f)))
      .filter((f) => /from ['"](cdktf|constructs|@cdktf\/[^'"]+)['"]/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(wrong).toEqual([]);
  });

  test('the check sees a wrong-way import (it can fail)', () => {
    expect(RANK[layerOf(path.join('lib', 'capi', 'x.ts'))]).toBeLessThan(RANK[layerOf(path.join('lib', 'stacks', 'x.ts'))]);
    expect(relativeImports(path.join('lib', 'app', 'environments-app.ts')).some((t) => layerOf(`${t}.ts`) === 'stacks')).toBe(true);
  });
});
