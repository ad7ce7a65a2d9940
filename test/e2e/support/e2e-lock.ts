/**
 * The lock that keeps e2e suites from seeing each other's resources on the shared local cloud and
 * local kube-apiserver: an exclusive flock(2) on /tmp/capi-e2e.lock, the same lock that
 * `flock /tmp/capi-e2e.lock <command>` takes in shell scripts. Each e2e lane (scripts/e2e/lane) is
 * a world of its own with its own lock file (CAPI_E2E_LOCK_FILE): the lock orders the runs that
 * share one world (two developers' runs, a shell script beside a suite), not the lanes.
 *
 * A bash child opens the file, waits for the lock with `flock -w`, then blocks reading its stdin.
 * Releasing closes that stdin; if the test process dies instead, the pipe closes all the same, so
 * the lock never outlives the suite.
 *
 * When the caller already holds the lock (a CI step wrapped in `flock /tmp/capi-e2e.lock ...`),
 * set CAPI_E2E_LOCK_HELD=1: taking it again from a child would wait for ourselves.
 *
 * Shell users: `flock /tmp/capi-e2e.lock <cmd>` hands the locked fd to <cmd> and everything it
 * starts. Never start long-lived daemons that way (e.g. scripts/local-cloud/start): they keep the
 * lock forever. Use `flock -o` (close the fd before running <cmd>) for such commands.
 */
import { spawn } from 'child_process';

export const E2E_LOCK_FILE = process.env.CAPI_E2E_LOCK_FILE ?? '/tmp/capi-e2e.lock';

export interface E2eLock {
  /** Releases the lock (idempotent). */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** Who is waiting, for the progress lines. */
  readonly holder: string;
  /** @default 1800 */
  readonly timeoutSeconds?: number;
  /** @default console.log */
  readonly log?: (line: string) => void;
  /** Seconds between "still waiting" lines. @default 30 */
  readonly progressSeconds?: number;
}

const LOCK_SCRIPT = `
exec 9>>"$1" || { echo "cannot open lock file $1" >&2; exit 2; }
if ! flock -w "$2" 9; then echo "timed out after $2 s waiting for $1" >&2; exit 75; fi
echo locked
read -r _ || true
`;

/** Waits for the exclusive e2e lock; rejects with a clear message on timeout. */
export function acquireE2eLock(options: AcquireOptions): Promise<E2eLock> {
  const log = options.log ?? ((line: string) => console.log(line));
  if (process.env.CAPI_E2E_LOCK_HELD === '1') {
    log(`${options.holder}: CAPI_E2E_LOCK_HELD=1, not taking ${E2E_LOCK_FILE} again`);
    return Promise.resolve({ release: async () => undefined });
  }
  const timeoutSeconds = options.timeoutSeconds ?? 1800;
  const started = Date.now();
  const child = spawn('bash', ['-c', LOCK_SCRIPT, 'e2e-lock', E2E_LOCK_FILE, String(timeoutSeconds)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<E2eLock>((resolve, reject) => {
    const progress = setInterval(
      () => log(`${options.holder}: still waiting for ${E2E_LOCK_FILE} (${Math.round((Date.now() - started) / 1000)} s; another e2e run holds it)`),
      (options.progressSeconds ?? 30) * 1000,
    );
    let locked = false;
    child.stdout.on('data', (d: Buffer) => {
      if (locked || !d.toString().includes('locked')) return;
      locked = true;
      clearInterval(progress);
      const waited = Math.round((Date.now() - started) / 1000);
      if (waited > 1) log(`${options.holder}: got ${E2E_LOCK_FILE} after ${waited} s`);
      let released = false;
      resolve({
        release: () =>
          new Promise<void>((done) => {
            if (released || child.exitCode !== null) {
              released = true;
              done();
              return;
            }
            released = true;
            const force = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(force);
              done();
            });
            child.stdin.end();
          }),
      });
    });
    child.once('exit', (code) => {
      clearInterval(progress);
      if (!locked) reject(new Error(`${options.holder}: could not take ${E2E_LOCK_FILE} (exit ${code}): ${stderr.trim() || 'no message'}`));
    });
    child.once('error', (err) => {
      clearInterval(progress);
      reject(new Error(`${options.holder}: cannot run bash/flock for ${E2E_LOCK_FILE}: ${err.message}`));
    });
  });
}
