/**
 * Helpers of the management-stack cloud e2e suite: a working directory per run that holds a
 * cdktf.json pointing at the built app, an environments/ dir with variants of
 * environments/local.yaml and the stack's local state; and the real cdktf / terraform CLIs run
 * in it with the project toolchain (scripts/toolchain/env.sh).
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseDocument } from 'yaml';

export const REPO = path.resolve(__dirname, '..', '..', '..');
export { CACHE_DIR, LOCAL_CLOUD_STATE, LOCAL_CLOUDS_YAML } from './lane-paths';

/**
 * `npm run build` of this checkout, unless `npm run test:e2e` built it already (CAPI_E2E_BUILT=1):
 * suites run side by side, and a build while another suite loads dist/ would hand it half-written
 * files.
 */
export function buildAppOnce(): void {
  if (process.env.CAPI_E2E_BUILT === '1') return;
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
}

/** cdktf deploy output while the management server is being created: the moment to kill a run mid-apply. */
export const SERVER_CREATING = /openstack_compute_instance_v2\.\S+ \([^)]*\): Creating\.\.\./;
const TOOLCHAIN_ENV = path.join(REPO, 'scripts', 'toolchain', 'env.sh');
const CDKTF_BIN = path.join(REPO, 'node_modules', '.bin', 'cdktf');

export interface CliResult {
  readonly code: number | null;
  /** stdout + stderr, ANSI colours removed. */
  readonly output: string;
  readonly seconds: number;
  readonly logFile: string;
}

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

/** The environment of every CLI run: the toolchain's, the given clouds.yaml, no stray OS_* settings, CI mode. */
function cliEnv(cloudsYaml: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OS_') && !k.startsWith('TF_VAR_')) env[k] = v;
  return {
    ...env,
    OS_CLIENT_CONFIG_FILE: cloudsYaml,
    CI: 'true',
    CHECKPOINT_DISABLE: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    TF_IN_AUTOMATION: '1',
    ...extra,
  };
}

export interface RunOptions {
  readonly cwd: string;
  readonly cloudsYaml: string;
  /** Name of the log file (numbered in run order). */
  readonly logName: string;
  /** @default <cwd>/logs */
  readonly logDir?: string;
  /** @default 600 */
  readonly timeoutSeconds?: number;
  readonly env?: Record<string, string>;
  /** Sends `signal` to the whole process group once the output matches `when` (a runner being stopped). */
  readonly interrupt?: { readonly when: RegExp; readonly signal: NodeJS.Signals; readonly delayMs?: number };
}

let sequence = 0;

/** Runs a command with the toolchain environment sourced; kills its process group on timeout. */
export function runWithToolchain(argv: readonly string[], options: RunOptions): Promise<CliResult> {
  const logDir = options.logDir ?? path.join(options.cwd, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  sequence += 1;
  const logFile = path.join(logDir, `${String(sequence).padStart(2, '0')}-${options.logName}.log`);
  const timeoutSeconds = options.timeoutSeconds ?? 600;
  const started = Date.now();
  const script = 'source "$1" || exit 97; shift; exec "$@"';
  const child = spawn('bash', ['-c', script, 'run', TOOLCHAIN_ENV, ...argv], {
    cwd: options.cwd,
    env: cliEnv(options.cloudsYaml, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const chunks: Buffer[] = [];
  let interrupted = false;
  const watch = (d: Buffer) => {
    chunks.push(d);
    if (!options.interrupt || interrupted || !options.interrupt.when.test(stripAnsi(Buffer.concat(chunks).toString('utf8')))) return;
    interrupted = true;
    const { signal, delayMs } = options.interrupt;
    setTimeout(() => {
      chunks.push(Buffer.from(`\n[e2e] ${signal} to the process group\n`));
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    }, delayMs ?? 0);
  };
  child.stdout.on('data', watch);
  child.stderr.on('data', watch);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGTERM');
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 10_000).unref();
    } catch {
      /* gone */
    }
  }, timeoutSeconds * 1000);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${argv.join(' ')}: ${err.message}`));
    });
    child.once('close', async (code) => {
      clearTimeout(timer);
      // an interrupted run is over when the last process of its group (terraform) has exited
      for (let i = 0; interrupted && i < 240 && spawnSync('pgrep', ['-g', String(child.pid)]).status === 0; i++) await new Promise((r) => setTimeout(r, 500));
      let output = stripAnsi(Buffer.concat(chunks).toString('utf8'));
      if (timedOut) output += `\n[e2e] killed after ${timeoutSeconds} s\n`;
      if (code === 97) output += `\n[e2e] sourcing ${TOOLCHAIN_ENV} failed: build the toolchain with npm run toolchain\n`;
      fs.writeFileSync(logFile, `$ ${argv.join(' ')}\n(cwd ${options.cwd})\n${output}`);
      resolve({ code: timedOut ? null : code, output, seconds: (Date.now() - started) / 1000, logFile });
    });
  });
}

/** `cdktf <args>` of the project's cdktf-cli. */
export function cdktf(args: readonly string[], options: RunOptions): Promise<CliResult> {
  return runWithToolchain([CDKTF_BIN, ...args], options);
}

/** The last lines of a CLI result, for assertion messages. */
export function tail(result: CliResult, lines = 40): string {
  const all = result.output.split('\n').filter((l) => l.trim() !== '');
  return `exit ${result.code} after ${result.seconds.toFixed(1)} s; full log: ${result.logFile}\n${all.slice(-lines).join('\n')}`;
}

/** A cdktf project dir for one variant of environments/local.yaml. */
export interface AppDir {
  readonly dir: string;
  /** The synthesized stack dir of `local-management`. */
  readonly stackDir: string;
  readonly stateFile: string;
}

export function makeAppDir(dir: string): AppDir {
  fs.mkdirSync(path.join(dir, 'environments'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'cdktf.json'),
    `${JSON.stringify(
      {
        language: 'typescript',
        app: `node ${path.join(REPO, 'dist', 'main.js')}`,
        projectId: 'capi-openstack-cdktf-e2e-management-cloud',
        sendCrashReports: 'false',
        terraformProviders: [],
        terraformModules: [],
        context: {},
      },
      null,
      2,
    )}\n`,
  );
  return {
    dir,
    stackDir: path.join(dir, 'cdktf.out', 'stacks', 'local-management'),
    stateFile: path.join(dir, 'terraform.local-management.tfstate'),
  };
}

/** environments/local.yaml of the repo with changes (paths into the YAML and their values). */
export function writeLocalEnvironment(app: AppDir, changes: ReadonlyArray<readonly [readonly (string | number)[], unknown]>): string {
  const doc = parseDocument(fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8'));
  for (const [at, value] of changes) doc.setIn(at, value);
  const text = doc.toString();
  fs.writeFileSync(path.join(app.dir, 'environments', 'local.yaml'), text);
  return text;
}

/** Resources recorded in a local state file (0 when there is none). */
export function stateResourceCount(stateFile: string): number {
  if (!fs.existsSync(stateFile)) return 0;
  try {
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { resources?: { mode: string; instances?: unknown[] }[] };
    return (state.resources ?? []).filter((r) => r.mode === 'managed').reduce((n, r) => n + (r.instances?.length ?? 0), 0);
  } catch {
    return 1; // unreadable: assume something is there and let destroy decide
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
