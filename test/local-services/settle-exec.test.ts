import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const LIB = path.join(__dirname, '..', '..', 'scripts', 'local-kube', 'lib.sh');

/**
 * Runs a bash snippet with scripts/local-kube/lib.sh sourced and a pid folder in $RUN; the snippet
 * starts `sleep` the way the local services start their processes (setsid in the background) but
 * through a launcher that execs it only after a delay, as a loaded machine does.
 */
function bash(snippet: string) {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'settle-exec-'));
  try {
    return spawnSync('bash', ['-c', `. "${LIB}"; RUN="${run}"; ${snippet}`], { encoding: 'utf8', timeout: 30_000 });
  } finally {
    fs.rmSync(run, { recursive: true, force: true });
  }
}

describe('settle_exec (scripts/local-kube/lib.sh): a process still being launched is not taken for one that exited', () => {
  test('before the launcher execs the binary, pid_alive says no; settle_exec waits for the exec, then pid_alive says yes', () => {
    const r = bash(`
      setsid bash -c 'sleep 0.4; exec sleep 5' >/dev/null 2>&1 </dev/null &
      pid=$!; echo $pid > "$RUN/sleep.pid"
      if pid_alive sleep "$RUN"; then echo early=alive; else echo early=not-alive; fi
      settle_exec sleep $pid
      if pid_alive sleep "$RUN"; then echo settled=alive; else echo settled=not-alive; fi
      kill $pid`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('early=not-alive\nsettled=alive\n');
  });

  test('spawn_detached (what the local services start with) returns once the binary runs: pid file, log and pid_alive agree', () => {
    const r = bash(`
      SECRET_FOR_CHILD=from-env spawn_detached sleep "$RUN/sleep.pid" "$RUN/sleep.log" bash -c 'echo "started $SECRET_FOR_CHILD"; sleep 0.4; exec sleep 5'
      if pid_alive sleep "$RUN"; then echo alive; else echo not-alive; fi
      cat "$RUN/sleep.log"
      echo "after:[\${SECRET_FOR_CHILD:-}]"
      kill "$(cat "$RUN/sleep.pid")"`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('alive\nstarted from-env\nafter:[]\n');
  });

  test('a launcher that ends without running the binary ends the wait at once, and pid_alive says no', () => {
    const r = bash(`
      setsid bash -c 'sleep 0.2; exit 3' >/dev/null 2>&1 </dev/null &
      pid=$!; echo $pid > "$RUN/sleep.pid"
      t0=$(date +%s%N); settle_exec sleep $pid; t1=$(date +%s%N)
      if pid_alive sleep "$RUN"; then echo alive; else echo not-alive; fi
      echo "waited_ms=$(( (t1 - t0) / 1000000 ))"`);
    expect(r.stdout).toMatch(/^not-alive\nwaited_ms=\d+\n$/);
    // well under settle_exec's 10 s limit, with room for a loaded machine
    expect(Number(/waited_ms=(\d+)/.exec(r.stdout)?.[1])).toBeLessThan(8000);
  });
});
