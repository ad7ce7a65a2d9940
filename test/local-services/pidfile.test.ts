import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SCRIPTS = path.join(__dirname, '..', '..', 'scripts');
const LIB = path.join(SCRIPTS, 'lib', 'pidfile.sh');

/**
 * Runs a bash snippet with scripts/lib/pidfile.sh sourced, a scratch folder in $DIR and the
 * project's cache root pointed into it (the stop scripts below then read only files made here).
 * Each snippet starts `sleep` as a process of its own session, the way the local services start
 * theirs: the process a stale pid file could name.
 */
function bash(snippet: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pidfile-'));
  try {
    return spawnSync('bash', ['-c', `set -u; . "${LIB}"; DIR="${dir}"; ${snippet}`], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CAPI_OPENSTACK_CDKTF_CACHE: dir, LOCAL_CLOUD_STATE: path.join(dir, 'local-cloud'), LOCAL_CHARTS_STATE: path.join(dir, 'local-charts') },
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const FOREIGN = `setsid sleep 30 </dev/null >/dev/null 2>&1 & foreign=$!; sleep 0.2`;
const REPORT = `if kill -0 $foreign 2>/dev/null; then echo left-alone; kill $foreign; else echo signalled; fi`;

describe('pid files of the local services (scripts/lib/pidfile.sh)', () => {
  test('a recorded process counts while it runs, and not once it is gone', () => {
    const r = bash(`
      sleep 30 & p=$!
      pid_record "$DIR/s.pid" $p
      pid_running "$DIR/s.pid" && echo running
      [ "$(pid_recorded "$DIR/s.pid")" = $p ] && echo pid-read
      kill $p; wait $p 2>/dev/null
      pid_running "$DIR/s.pid" || echo gone`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('running\npid-read\ngone\n');
  });

  test('a file naming a live process by number only (older format), or with another start time, or junk, names no process', () => {
    const r = bash(`
      ${FOREIGN}
      echo "$foreign" > "$DIR/old.pid"; pid_running "$DIR/old.pid" || echo old-format
      echo "$foreign 1" > "$DIR/other.pid"; pid_running "$DIR/other.pid" || echo other-start-time
      echo "1 x" > "$DIR/junk.pid"; pid_running "$DIR/junk.pid" || echo junk
      : > "$DIR/empty.pid"; pid_running "$DIR/empty.pid" || echo empty
      pid_running "$DIR/missing.pid" || echo missing
      ${REPORT}`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('old-format\nother-start-time\njunk\nempty\nmissing\nleft-alone\n');
  });

  test.each([
    ['the stand-in registry', 'mkdir -p "$DIR/local-vm-registry"; echo $foreign > "$DIR/local-vm-registry/registry.pid"', 'local-vm/registry-stop'],
    ['the stand-in file server', 'mkdir -p "$DIR/local-vm-file-server"; echo $foreign > "$DIR/local-vm-file-server/server.pid"', 'local-vm/file-server-stop'],
    ['the chart mirror', 'mkdir -p "$DIR/local-charts/run"; echo $foreign > "$DIR/local-charts/run/registry.pid"; echo $foreign > "$DIR/local-charts/run/https.pid"', 'local-charts/stop'],
    // the services' stop only: scripts/local-cloud/stop also removes the machine's link of a running
    // local cloud (lc-cloud0), which a unit test must not touch
    ['the local cloud (its stop signals whole process groups)', 'mkdir -p "$DIR/local-cloud/run"; echo $foreign > "$DIR/local-cloud/run/keystone.pid"; echo $foreign > "$DIR/local-cloud/run/mariadb.pid"', 'local-cloud:keystone mariadb'],
  ])('a stale pid file of %s naming a live foreign process: the stop leaves that process alone and removes the file', (_what, plant, stop) => {
    const command = stop.startsWith('local-cloud:')
      ? `bash -c '. "${SCRIPTS}/local-cloud/lib/common.sh"; . "${SCRIPTS}/local-cloud/lib/services.sh"; stop_services 30 ${stop.slice('local-cloud:'.length)}'`
      : `"${SCRIPTS}/${stop}"`;
    const r = bash(`
      ${FOREIGN}
      ${plant}
      LOCAL_VM_FILE_SERVER_DIR="$DIR/local-vm-file-server" ${command} >/dev/null 2>&1 || echo "stop failed: $?"
      ${REPORT}
      find "$DIR" -name '*.pid' | wc -l`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('left-alone\n0\n');
  });
});
