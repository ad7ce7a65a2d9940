#!/usr/bin/env node
/**
 * `npm run bench`, part f: fleet plans. The pipeline's plan stage (scripts/pipeline/plan, drift
 * mode: every stack planned, nothing saved) of an environment with 1, 10 and 100 workload clusters
 * on a brought-your-own management cluster (the local kube-apiserver) and the local cloud, once
 * serial (PIPELINE_PARALLELISM=1) and once with the default parallelism (the cores): wall time,
 * peak memory of the whole process tree, seconds per cluster, ratio. Then the no-change check: a
 * fleet of BENCH_FLEET_APPLY (10) clusters is applied through the pipeline, planned again serial and
 * parallel (every stack must report zero changes) and destroyed. The machine's busy cores during
 * each run show how far parallel plans can go here: on loopback the plans are CPU-bound, so a
 * serial run keeping b of n cores busy can at best reach the ratio b/n ("CPU-bound limit").
 *
 * BENCH_FLEET_RTT_MS=N (default 0) puts the local cloud and the management cluster N ms of round
 * trip away (scripts/bench/remote-cloud.js), as real ones are from a laptop or CI runner: parallel
 * plans then overlap the waiting a serial run pays in full.
 *
 * Needs `npm run build`, the toolchain, scripts/local-cloud/start and scripts/local-kube/start;
 * skipped with a message when they do not run (BENCH_FLEET=1: fail instead, BENCH_FLEET=0: skip).
 * BENCH_FLEET_SIZES=1,10,100 sets the sizes. BENCH_FLEET_REFERENCE=<checkout> (built, with
 * node_modules; the previous release) plans each fleet serially with that checkout's pipeline too,
 * for the ratio of wall time and CPU per cluster. Writes bench-fleet.json (BENCH_FLEET_OUTPUT).
 */
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { placeAway } = require('./remote-cloud');
const { round, table } = require('./stats');

const REPO = path.resolve(__dirname, '..', '..');
const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE || path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const CLOUDS_YAML = path.join(process.env.LOCAL_CLOUD_STATE || path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const KUBECONFIG = path.join(CACHE, 'local-kube', 'kubeconfig');
const SIZES = (process.env.BENCH_FLEET_SIZES || '1,10,100').split(',').map(Number);
const APPLY_SIZE = Number(process.env.BENCH_FLEET_APPLY || 10);
const RTT_MS = Number(process.env.BENCH_FLEET_RTT_MS || 0);
const OUTPUT = path.resolve(REPO, process.env.BENCH_FLEET_OUTPUT || 'bench-fleet.json');
/** A built checkout (the previous release) whose pipeline plans each fleet too, serially, for the ratio. */
const REFERENCE = process.env.BENCH_FLEET_REFERENCE ? path.resolve(process.env.BENCH_FLEET_REFERENCE) : undefined;
const CORES = os.cpus().length;
/** Issue 38's goal for the planning side's CPU per cluster (everything the plan stage ran, serial). */
const GOAL_CPU_SECONDS_PER_CLUSTER = 1.1;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-fleet-'));
/** The pipeline stage running now (its own process group), for the interrupt handler. */
let current;
const log = (line) => process.stderr.write(`bench fleet: ${line}\n`);

function fail(message) {
  process.stderr.write(`bench fleet: ERROR: ${message}\n`);
  process.exit(1);
}

function blocker() {
  if (process.env.BENCH_FLEET === '0') return 'BENCH_FLEET=0';
  for (const svc of ['local-cloud', 'local-kube']) {
    if (spawnSync(path.join(REPO, 'scripts', svc, 'status'), [], { encoding: 'utf8' }).status !== 0) return `${svc} is not running (scripts/${svc}/start)`;
  }
  if (!fs.existsSync(path.join(REPO, 'dist', 'main.js'))) return 'dist/ is missing (npm run build)';
  return undefined;
}

/** The relays when BENCH_FLEET_RTT_MS > 0; the fleet then uses their kubeconfig and clouds.yaml. */
let away;
const fleetKubeconfig = () => away?.kubeconfig ?? KUBECONFIG;
const fleetCloudsYaml = () => away?.cloudsYaml ?? CLOUDS_YAML;
async function placeServicesAway(rttMs) {
  if (rttMs === 0) return;
  away = await placeAway({ cloudsYamlPath: CLOUDS_YAML, kubeconfigPath: KUBECONFIG, rttMs, workDir: work, repo: REPO });
  log(`the local cloud and the management cluster ${rttMs} ms away (relays in front of Keystone, every API of its catalogue and the kube-apiserver)`);
}

/** environments/local.yaml on the local kube-apiserver with its cluster copied `count` times. */
function writeFleet(name, count) {
  const YAML = require(require.resolve('yaml', { paths: [REPO] }));
  const base = YAML.parse(fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8'));
  const [template] = Object.values(base.clusters);
  const doc = { ...base, prefix: 'bfleet', existingManagementCluster: { kubeconfigFile: fleetKubeconfig() }, clusters: {} };
  delete doc.management;
  for (let i = 0; i < count; i++) doc.clusters[`c${String(i).padStart(3, '0')}`] = template;
  fs.mkdirSync(path.join(work, 'environments'), { recursive: true });
  fs.writeFileSync(path.join(work, 'environments', `${name}.yaml`), YAML.stringify(doc));
}

/** Sum of the resident memory of every process of a process group, in KiB. */
function groupRssKb(pgid) {
  let kb = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone between listing and reading
    }
  }
  return kb;
}

/** CPU time the whole machine spent busy so far (all processes, local services included), in seconds. */
function busyCpuSeconds() {
  const [user, nice, system, , , irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / 100; // USER_HZ
}

/** User + system seconds of the children from bash's `times` output (its second line), 0 when missing. */
function childCpuSeconds(file) {
  const line = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n')[1] ?? '' : '';
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

/** A pipeline stage as its own process group: wall time, peak tree RSS, exit code, pipeline.json. */
function stage(script, name, extraEnv, what, repo = REPO) {
  const dir = path.join(work, 'pipeline', name);
  const env = {
    ...process.env, CHECKPOINT_DISABLE: '1', NO_COLOR: '1', CI: '', GITHUB_ACTIONS: '', GITLAB_CI: '',
    OS_CLIENT_CONFIG_FILE: fleetCloudsYaml(), ENVIRONMENT: name, ENVIRONMENTS_DIR: path.join(work, 'environments'), PIPELINE_DIR: dir,
    PIPELINE_BACKEND: 'local', PIPELINE_BACKEND_CONFIG: JSON.stringify({ path: path.join(work, 'state', '{stack}.tfstate') }),
    ...extraEnv,
  };
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const cpu0 = busyCpuSeconds();
    // `times` after the stage: the CPU time of everything it ran (Terraform, providers, node),
    // which tells the planning side's share from the local services' in the busy cores.
    const timesFile = path.join(work, `${what.replace(/\W+/g, '-')}.times`);
    const wrapped = 'bash "$0"; rc=$?; times > "$1"; exit $rc';
    const child = spawn('bash', ['-c', wrapped, path.join(repo, 'scripts', 'pipeline', script), timesFile], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let peakKb = 0;
    const poll = setInterval(() => (peakKb = Math.max(peakKb, groupRssKb(child.pid))), 250);
    child.on('exit', (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      fs.writeFileSync(path.join(work, `${what.replace(/\W+/g, '-')}.log`), output);
      const file = path.join(dir, 'pipeline.json');
      const doc = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { stacks: [] };
      const busyCores = round((busyCpuSeconds() - cpu0) / seconds, 2);
      const plannerCpuSeconds = childCpuSeconds(timesFile);
      const plannerCores = round(plannerCpuSeconds / seconds, 2);
      resolve({ code, seconds: round(seconds), peakRssMiB: round(peakKb / 1024, 1), busyCores, plannerCores, plannerCpuSeconds: round(plannerCpuSeconds, 2), stacks: doc.stacks ?? [], output });
    });
  });
}

function expectCode(result, codes, what) {
  if (!codes.includes(result.code)) fail(`${what} exited ${result.code} (expected ${codes.join(' or ')}):\n${result.output.slice(-4000)}`);
}

async function plans() {
  const rows = [];
  for (const n of SIZES) {
    const name = `fleet${n}`;
    writeFleet(name, n);
    const measured = {};
    for (const [label, parallelism] of [['serial', 1], ['parallel', CORES]]) {
      log(`${name}: drift plan of ${n} cluster stack(s), ${label} (PIPELINE_PARALLELISM=${parallelism})`);
      const r = await stage('plan', name, { PIPELINE_DRIFT: '1', PIPELINE_PARALLELISM: String(parallelism) }, `${name}-${label}`);
      expectCode(r, [2], `${name} ${label} plan`); // never applied: every stack has changes
      if (r.stacks.length !== n) fail(`${name} ${label}: pipeline.json lists ${r.stacks.length} stacks, expected ${n}`);
      const perStack = r.stacks.map((s) => s.seconds ?? 0);
      measured[label] = { seconds: r.seconds, peakRssMiB: r.peakRssMiB, busyCores: r.busyCores, plannerCores: r.plannerCores, secondsPerCluster: round(r.seconds / n, 2), cpuSecondsPerCluster: round(r.plannerCpuSeconds / n, 2), meanStackPlanSeconds: round(perStack.reduce((a, b) => a + b, 0) / n, 2) };
      log(`${name} ${label}: ${r.seconds} s, peak ${r.peakRssMiB} MiB, ${r.busyCores} cores busy on average (${r.plannerCores} by the plans themselves, the rest by the local services), ${measured[label].cpuSecondsPerCluster} CPU-s per cluster`);
    }
    // A serial run that already keeps `busyCores` cores busy can at best be sped up by
    // CORES / busyCores when the work is CPU-bound (as on loopback): the lowest reachable ratio.
    // With the services on machines of their own (a real cloud), only the plans' share would count.
    const cpuBoundRatio = round(measured.serial.busyCores / CORES, 2);
    const plannerBoundRatio = round(measured.serial.plannerCores / CORES, 2);
    let reference;
    if (REFERENCE) {
      log(`${name}: drift plan of ${n} cluster stack(s), serial, by the reference ${REFERENCE}`);
      const r = await stage('plan', name, { PIPELINE_DRIFT: '1', PIPELINE_PARALLELISM: '1' }, `${name}-reference`, REFERENCE);
      expectCode(r, [2], `${name} reference plan`);
      const cpuSecondsPerCluster = round(r.plannerCpuSeconds / n, 2);
      reference = { checkout: REFERENCE, seconds: r.seconds, cpuSecondsPerCluster, secondsRatio: round(measured.serial.seconds / r.seconds, 2), cpuRatio: round(measured.serial.cpuSecondsPerCluster / cpuSecondsPerCluster, 2) };
      log(`${name} reference: ${r.seconds} s, ${cpuSecondsPerCluster} CPU-s per cluster; ours / reference: ${reference.secondsRatio}× wall, ${reference.cpuRatio}× CPU`);
    }
    rows.push({ clusters: n, ...measured, ratio: round(measured.parallel.seconds / measured.serial.seconds, 2), cpuBoundRatio, plannerBoundRatio, reference });
  }
  return rows;
}

/** Destroys what an applied fleet left (after a failure or Ctrl-C too): nothing of the bench stays. */
async function destroyFleet(name) {
  log(`${name}: destroying`);
  const planned = await stage('plan', name, { PIPELINE_DESTROY: '1' }, `${name}-destroy-plan`);
  const destroyed = planned.code === 0 ? await stage('apply', name, { PIPELINE_DESTROY: '1' }, `${name}-destroy`) : planned;
  if (destroyed.code !== 0) {
    process.stderr.write(`bench fleet: destroying ${name} failed (${destroyed.code}); its state is kept in ${path.join(work, 'state')}:\n${destroyed.output.slice(-3000)}\n`);
    return false;
  }
  return true;
}

/** Apply a fleet, plan it again (zero changes everywhere), destroy it. */
async function unchangedFleet() {
  const name = `applied${APPLY_SIZE}`;
  writeFleet(name, APPLY_SIZE);
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    log('interrupted: destroying the applied fleet first (a second signal leaves it behind)');
    process.kill(-current.pid, 'SIGINT');
    process.once('SIGINT', () => process.exit(130));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  let again;
  let againSerial;
  let applied;
  try {
    log(`${name}: plan + apply of ${APPLY_SIZE} cluster stacks`);
    expectCode(await stage('plan', name, {}, `${name}-plan`), [0], `${name} plan`);
    applied = await stage('apply', name, {}, `${name}-apply`);
    if (!interrupted && applied.code === 0) {
      log(`${name}: drift plan after the apply`);
      againSerial = await stage('plan', name, { PIPELINE_DRIFT: '1', PIPELINE_PARALLELISM: '1' }, `${name}-replan-serial`);
      again = await stage('plan', name, { PIPELINE_DRIFT: '1' }, `${name}-replan`);
    }
  } finally {
    const clean = await destroyFleet(name);
    process.removeListener('SIGINT', onSignal).removeListener('SIGTERM', onSignal);
    if (interrupted) process.exit(130);
    if (!clean) fail(`${name}: the destroy failed (see above)`);
  }
  expectCode(applied, [0], `${name} apply`);
  const changed = [...againSerial.stacks, ...again.stacks].filter((s) => s.status !== 'no-changes');
  for (const r of [againSerial, again]) expectCode(r, [0], `${name} drift plan after the apply (stacks with changes: ${changed.map((s) => `${s.name} ${s.status}`).join(', ')})`);
  return {
    clusters: APPLY_SIZE,
    applySeconds: applied.seconds,
    replanSerialSeconds: againSerial.seconds,
    replanSeconds: again.seconds,
    replanRatio: round(again.seconds / againSerial.seconds, 2),
    busyCores: { serial: againSerial.busyCores, parallel: again.busyCores },
    stacks: again.stacks.length,
    stacksWithChanges: changed.length,
    statuses: [...new Set([...againSerial.stacks, ...again.stacks].map((s) => s.status))],
  };
}

async function main() {
  const why = blocker();
  if (why) {
    if (process.env.BENCH_FLEET === '1') fail(`fleet bench requested (BENCH_FLEET=1) but ${why}`);
    log(`skipped: ${why}`);
    return;
  }
  if (!(Number.isFinite(RTT_MS) && RTT_MS >= 0)) fail(`BENCH_FLEET_RTT_MS must be a number of milliseconds >= 0, got '${process.env.BENCH_FLEET_RTT_MS}'`);
  await placeServicesAway(RTT_MS);
  const planRows = await plans();
  const unchanged = APPLY_SIZE > 0 ? await unchangedFleet() : undefined;
  if (away) log(`relayed ports: ${away.relayedPorts().join(', ')}`);
  await away?.close();
  fs.writeFileSync(OUTPUT, `${JSON.stringify({ cores: CORES, rttMs: RTT_MS, plans: planRows, unchanged }, null, 2)}\n`);
  const rows = planRows.map((r) => [r.clusters, `${r.serial.seconds} s`, `${r.parallel.seconds} s`, r.ratio, r.cpuBoundRatio, r.plannerBoundRatio, `${r.serial.busyCores} / ${r.parallel.busyCores}`, `${r.serial.plannerCores} / ${r.parallel.plannerCores}`, r.serial.secondsPerCluster, r.parallel.secondsPerCluster, `${r.serial.cpuSecondsPerCluster} (${(r.serial.cpuSecondsPerCluster / GOAL_CPU_SECONDS_PER_CLUSTER).toFixed(2)}×)`, r.serial.peakRssMiB, r.parallel.peakRssMiB]);
  process.stdout.write(
    `\nf) fleet plans, pipeline drift mode, ${CORES} cores (serial = PIPELINE_PARALLELISM=1, parallel = ${CORES}), cloud and management cluster ${RTT_MS ? `${RTT_MS} ms away` : 'on loopback'}\n` +
      `${table(['clusters', 'serial', 'parallel', 'ratio', 'CPU-bound limit', 'plans-only limit', 'busy cores s/p', 'plans\' cores s/p', 's/cluster serial', 's/cluster parallel', `CPU-s/cluster (vs ${GOAL_CPU_SECONDS_PER_CLUSTER})`, 'peak MiB serial', 'peak MiB parallel'], rows)}\n` +
      planRows.filter((r) => r.reference).map((r) => `${r.clusters} clusters, serial, against the reference ${r.reference.checkout}: ${r.serial.seconds} s / ${r.reference.seconds} s (${r.reference.secondsRatio}×), ${r.serial.cpuSecondsPerCluster} / ${r.reference.cpuSecondsPerCluster} CPU-s per cluster (${r.reference.cpuRatio}×)\n`).join('') +
      (unchanged
        ? `no-change run: ${unchanged.clusters} applied cluster stacks planned again, serial ${unchanged.replanSerialSeconds} s, parallel ${unchanged.replanSeconds} s (ratio ${unchanged.replanRatio}, busy cores ${unchanged.busyCores.serial} / ${unchanged.busyCores.parallel}): ${unchanged.stacksWithChanges} with changes (results: ${unchanged.statuses.join(', ')})\n`
        : '') +
      `written to ${path.relative(REPO, OUTPUT)}\n`,
  );
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((e) => fail(e.stack || String(e)));
