/**
 * A consumer's own project: `npm pack` of this repository installed into a fresh folder beside
 * the framework packages the consumer picks (they are peer dependencies), its TypeScript
 * type-checked against the packaged typings, then run with node like `cdktf synth` would.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly files: readonly { readonly path: string }[];
}

export function run(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed with ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

export function installedVersion(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Packs this checkout as it is on disk into `work` (`prepare` builds it first, unless `npm run
 * test:e2e` built it already: a build while suites beside this one load dist/ would hand them
 * half-written files).
 */
export function packRepository(work: string): PackResult {
  const skipBuild = process.env.CAPI_E2E_BUILT === '1' ? ['--ignore-scripts'] : [];
  return (JSON.parse(run('npm', ['pack', '--json', ...skipBuild, '--pack-destination', work], ROOT)) as PackResult[])[0];
}

/** What a clean clone of this repository did on its way to the tarball. */
export interface CleanClonePack extends PackResult {
  /** The stacks `npm ci && npx cdktf synth` wrote in the clone. */
  readonly synthesizedStacks: readonly string[];
}

/**
 * Packs this repository as a release from a clean checkout would: a fresh clone of HEAD (no
 * `dist/`), `npm ci` (whose `prepare` builds), `npx cdktf synth` of the example, then `dist/` is
 * removed and `npm pack` must build it again by itself. Commit first: uncommitted changes are not
 * in the clone.
 */
export function packCleanClone(work: string): CleanClonePack {
  const clone = path.join(work, 'clone');
  run('git', ['clone', '-q', ROOT, clone], work);
  if (fs.existsSync(path.join(clone, 'dist'))) throw new Error('the clean clone already has dist/: is it committed?');
  const env = { ...process.env, CHECKPOINT_DISABLE: '1', CI: '1', ENVIRONMENT: 'example' };
  run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone, env);
  run('npx', ['cdktf', 'synth'], clone, env);
  const synthesizedStacks = fs.readdirSync(path.join(clone, 'cdktf.out', 'stacks')).sort();
  fs.rmSync(path.join(clone, 'dist'), { recursive: true, force: true });
  const packed = (JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], clone, env)) as PackResult[])[0];
  return { ...packed, synthesizedStacks };
}

export interface ConsumerOptions {
  /** The consumer's main.ts. */
  readonly main: string;
  /** npm specs of what the consumer installs beside the package, e.g. `constructs@10.4.2`. */
  readonly dependencies: readonly string[];
  /** Ask the registry for the newest matching versions instead of taking what the npm cache has. @default false */
  readonly preferOnline?: boolean;
}

/** Creates the consumer in `dir`, installs, type-checks and runs main.ts; returns its stacks by id. */
export function buildConsumer(dir: string, tarball: string, options: ConsumerOptions): Record<string, any> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'acme-clusters', version: '1.0.0', private: true }, null, 2));
  const compilerOptions = { target: 'ES2022', module: 'commonjs', strict: true, esModuleInterop: true, skipLibCheck: false, types: ['node'], outDir: '.' };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }, null, 2));
  fs.writeFileSync(path.join(dir, 'main.ts'), options.main);
  const npmArgs = ['install', '--no-audit', '--no-fund', tarball, ...options.dependencies, `@types/node@${installedVersion('@types/node')}`];
  const offline = options.preferOnline ? { status: 1 } : spawnSync('npm', ['--offline', ...npmArgs], { cwd: dir, encoding: 'utf8' });
  if (offline.status !== 0) {
    // The cache lacks a package (fresh machine, a newer constructs): fetch it from the registry.
    run('npm', [options.preferOnline ? '--prefer-online' : '--prefer-offline', ...npmArgs], dir);
  }
  run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], dir);
  run(process.execPath, ['main.js'], dir, { ...process.env, CDKTF_OUTDIR: path.join(dir, 'cdktf.out') });
  const stacksDir = path.join(dir, 'cdktf.out', 'stacks');
  return Object.fromEntries(fs.readdirSync(stacksDir).map((id) => [id, JSON.parse(fs.readFileSync(path.join(stacksDir, id, 'cdk.tf.json'), 'utf8'))]));
}

/** The newest published version a range resolves to today (what a fresh `npm install` gets). */
export function newestInRange(name: string, range: string): string {
  const out = JSON.parse(run('npm', ['view', `${name}@${range}`, 'version', '--json'], ROOT)) as string | string[];
  return Array.isArray(out) ? out[out.length - 1] : out;
}

/** Every installed copy of a package in the consumer (one means the framework is shared). */
export function installedCopies(dir: string, name: string): string[] {
  const out = JSON.parse(spawnSync('npm', ['ls', name, '--all', '--json'], { cwd: dir, encoding: 'utf8' }).stdout || '{}');
  const versions: string[] = [];
  const walk = (deps: Record<string, { version?: string; dependencies?: Record<string, unknown> }> = {}) => {
    for (const [n, d] of Object.entries(deps)) {
      if (n === name && d.version && !versions.includes(d.version)) versions.push(d.version);
      walk(d.dependencies as never);
    }
  };
  walk(out.dependencies);
  const nested = fs.existsSync(path.join(dir, 'node_modules', PKG.name, 'node_modules', name));
  return nested ? [...versions, '(nested copy)'] : versions;
}
