/**
 * Process helpers of the workload-cluster e2e suite: the toolchain environment, and child
 * processes whose output lines are time-stamped on arrival (the destroy order is read from them).
 * The exclusive lock on the shared local services is test/e2e/support/e2e-lock.ts.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * The process environment for terraform / cdktf: the project's offline toolchain (sourced from
 * scripts/toolchain/env.sh unless TF_CLI_CONFIG_FILE is already set, as `npm run test:e2e` does)
 * and the local cloud's clouds.yaml.
 */
export function toolchainEnv(cloudsFile: string): NodeJS.ProcessEnv {
  let env: NodeJS.ProcessEnv = { ...process.env };
  if (!env.TF_CLI_CONFIG_FILE) {
    const r = spawnSync('bash', ['-c', '. scripts/toolchain/env.sh >&2 && env -0'], { cwd: ROOT, encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`sourcing scripts/toolchain/env.sh failed (build it with: npm run toolchain):\n${r.stderr}`);
    env = Object.fromEntries(
      r.stdout
        .split('\0')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  }
  return { ...env, CHECKPOINT_DISABLE: '1', OS_CLIENT_CONFIG_FILE: cloudsFile, TF_IN_AUTOMATION: '1', CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1' };
}

/** One line of a child's output, with the milliseconds since the process started. */
export interface TimedLine {
  readonly atMs: number;
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

export interface RunResult {
  readonly code: number;
  readonly lines: readonly TimedLine[];
  readonly seconds: number;
  /** Everything, colour codes removed. */
  readonly output: string;
}

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly lines: TimedLine[];
  readonly done: Promise<RunResult>;
}

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Starts a command; `done` resolves (never rejects) when it exits or is killed at `timeoutMs`. */
export function start(cmd: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): RunningProcess {
  const t0 = Date.now();
  const child = spawn(cmd, [...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: TimedLine[] = [];
  const pending: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  const feed = (stream: 'stdout' | 'stderr', chunk: string, flush = false) => {
    pending[stream] += chunk;
    const parts = pending[stream].split(/\r?\n/);
    pending[stream] = flush ? '' : parts.pop()!;
    for (const p of parts) lines.push({ atMs: Date.now() - t0, stream, text: p.replace(ANSI, '') });
  };
  child.stdout!.on('data', (d: Buffer) => feed('stdout', d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => feed('stderr', d.toString('utf8')));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
  }, options.timeoutMs);
  const done = new Promise<RunResult>((resolve) => {
    const finish = (code: number) => {
      clearTimeout(timer);
      feed('stdout', '', true);
      feed('stderr', '', true);
      if (timedOut) lines.push({ atMs: Date.now() - t0, stream: 'stderr', text: `(killed after ${Math.round(options.timeoutMs / 1000)}s)` });
      resolve({ code, lines, seconds: (Date.now() - t0) / 1000, output: lines.map((l) => l.text).join('\n') });
    };
    child.on('error', (e) => {
      lines.push({ atMs: Date.now() - t0, stream: 'stderr', text: `cannot start ${cmd}: ${e.message}` });
      finish(-1);
    });
    child.on('close', (code) => finish(timedOut ? -2 : code ?? -1));
  });
  return { child, lines, done };
}

export function run(cmd: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return start(cmd, args, options).done;
}

/** The last `n` lines of a run, for a failure message (terraform never prints secret values). */
export function tail(result: RunResult, n = 60): string {
  return result.lines
    .slice(-n)
    .map((l) => l.text)
    .join('\n');
}

/** Throws with the command's tail unless it exited with one of `codes`. */
export function expectExit(result: RunResult, what: string, codes: readonly number[] = [0]): RunResult {
  if (!codes.includes(result.code)) throw new Error(`${what} exited with ${result.code} after ${result.seconds.toFixed(1)}s:\n${tail(result)}`);
  return result;
}

/** Newest modification time of the TypeScript sources under `dirs` (for a stale-build warning). */
export function newestSourceMtime(dirs: readonly string[]): { file: string; mtimeMs: number } {
  let best = { file: '', mtimeMs: 0 };
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const m = fs.statSync(p).mtimeMs;
        if (m > best.mtimeMs) best = { file: p, mtimeMs: m };
      }
    }
  };
  for (const d of dirs) if (fs.existsSync(d)) walk(d);
  return best;
}

/** local-kube's bin directory (kube-apiserver, etcd) at the pinned or LOCAL_KUBE_KUBERNETES_VERSION release. */
export function localKubeBinDir(): string {
  const r = spawnSync('bash', ['-c', '. scripts/local-kube/lib.sh && echo "$LOCAL_KUBE_BIN_DIR"'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reading LOCAL_KUBE_BIN_DIR failed: ${r.stderr}`);
  return r.stdout.trim();
}
