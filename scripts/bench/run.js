#!/usr/bin/env node
/**
 * `npm run bench`: synthesis cost of the app and how it scales with the number of clusters.
 *
 *  a) `node dist/main.js` for environments/example.yaml vs a trivial cdktf app with the same
 *     providers (scripts/bench/trivial-app.js): medians and ratio
 *  b) `npx cdktf synth` of the example, end to end: median
 *  c) an environment with 100 clusters: wall time and peak RSS of the synthesis
 *  d) one cluster stack at 1, 10 and 100 clusters: cdk.tf.json bytes and resource count, and, when
 *     the local cloud and the local kube-apiserver run, `terraform plan` of that stack (time, changes)
 *
 * Prints a table and writes bench-results.json (BENCH_OUTPUT to change). Builds first (tsc is
 * incremental) unless BENCH_SKIP_BUILD=1. BENCH_RUNS (default 5) sets the repetitions of a) and b);
 * BENCH_PLAN=0 skips the plans, BENCH_PLAN=1 makes a missing local cloud an error.
 */
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median, round, table } = require('./stats');

const root = path.resolve(__dirname, '..', '..');
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const OUTPUT = path.resolve(root, process.env.BENCH_OUTPUT ?? 'bench-results.json');
const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-bench-'));
const baseEnv = { ...process.env, CHECKPOINT_DISABLE: '1' };
delete baseEnv.ENVIRONMENT;
delete baseEnv.ENVIRONMENTS_DIR;
delete baseEnv.CDKTF_OUTDIR;

const log = (line) => process.stderr.write(`bench: ${line}\n`);
let outCounter = 0;
const freshDir = (stem) => path.join(work, `${stem}-${++outCounter}`);

function fail(message) {
  process.stderr.write(`bench: ERROR: ${message}\n`);
  process.exit(1);
}

/** Runs a command to completion; returns seconds. Fails with its output on a non-zero exit. */
function timed(cmd, args, env, what) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) fail(`${what} failed (exit ${r.status ?? r.signal}):\n${(r.stderr || '') + (r.stdout || '')}`.slice(0, 4000));
  return s;
}

/** Medians of RUNS runs after one discarded warm-up run (page cache, compile cache). */
function repeat(what, makeRun) {
  makeRun();
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(makeRun());
  log(`${what}: median ${median(times).toFixed(3)} s over ${RUNS} runs (${times.map((t) => t.toFixed(2)).join(', ')})`);
  return { medianSeconds: round(median(times)), runsSeconds: times.map((t) => round(t)) };
}

/** Wall time and peak RSS of one command: /usr/bin/time -v when present, else polling /proc. */
async function measured(cmd, args, env, what) {
  if (fs.existsSync('/usr/bin/time')) {
    const report = path.join(work, `time-${++outCounter}.txt`);
    const t0 = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-v', '-o', report, cmd, ...args], { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) fail(`${what} failed (exit ${r.status ?? r.signal}):\n${(r.stderr || '') + (r.stdout || '')}`.slice(0, 4000));
    const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(fs.readFileSync(report, 'utf8'))?.[1]);
    return { seconds: round(s), peakRssMiB: round(kb / 1024, 1), rssMethod: '/usr/bin/time -v' };
  }
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peakKb = 0;
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        // exited between polls
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(poll);
      if (code !== 0) fail(`${what} failed (exit ${code}):\n${stderr.slice(0, 4000)}`);
      resolve({ seconds: round(Number(process.hrtime.bigint() - t0) / 1e9), peakRssMiB: round(peakKb / 1024, 1), rssMethod: 'polled /proc/<pid>/status VmHWM every 20 ms' });
    });
  });
}

function loadYaml() {
  return require(require.resolve('yaml', { paths: [root] }));
}

/** Writes <dir>/<name>.yaml: `base` with its first cluster copied `count` times (c000, c001, ...). */
function writeScaledEnvironment(dir, name, base, count, extra = {}) {
  const YAML = loadYaml();
  const doc = { ...base, ...extra };
  const [template] = Object.values(base.clusters ?? {});
  if (!template) fail(`the base environment of ${name} has no cluster to copy`);
  doc.clusters = {};
  for (let i = 0; i < count; i++) doc.clusters[`c${String(i).padStart(3, '0')}`] = template;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.yaml`), YAML.stringify(doc));
}

function stackStats(file) {
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const count = (block) => Object.values(json[block] ?? {}).reduce((n, byName) => n + Object.keys(byName).length, 0);
  return { bytes: fs.statSync(file).size, resources: count('resource'), dataSources: count('data'), outputs: Object.keys(json.output ?? {}).length };
}

function synthApp(environment, environmentsDir, outdir) {
  const env = { ...baseEnv, ENVIRONMENT: environment, CDKTF_OUTDIR: outdir };
  if (environmentsDir) env.ENVIRONMENTS_DIR = environmentsDir;
  return env;
}

function sh(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts });
}

/** Environment for terraform with the project's offline provider mirror (scripts/toolchain/env.sh). */
function toolchainEnv() {
  const r = sh('bash', ['-c', 'source scripts/toolchain/env.sh >/dev/null && env -0']);
  if (r.status !== 0) return undefined;
  return Object.fromEntries(
    r.stdout
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

/** Why plans cannot run here, or undefined when the local cloud and kube-apiserver answer. */
function planBlocker() {
  if (process.env.BENCH_PLAN === '0') return 'BENCH_PLAN=0';
  for (const svc of ['local-cloud', 'local-kube']) {
    const r = sh(path.join(root, 'scripts', svc, 'status'), []);
    if (r.status !== 0) return `${svc} is not running (scripts/${svc}/start)`;
  }
  if (!toolchainEnv()) return 'the offline provider mirror is not built (npm run toolchain)';
  return undefined;
}

/** terraform init + plan of one synthesized stack; returns time, plan file size and change count. */
function planStack(stackDir, env) {
  const init = sh('terraform', ['init', '-input=false', '-no-color'], { cwd: stackDir, env });
  if (init.status !== 0) fail(`terraform init in ${stackDir} failed:\n${init.stdout}${init.stderr}`.slice(0, 4000));
  const t0 = process.hrtime.bigint();
  const plan = sh('terraform', ['plan', '-input=false', '-no-color', '-lock=false', '-out=bench.tfplan'], { cwd: stackDir, env });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (plan.status !== 0) fail(`terraform plan in ${stackDir} failed:\n${plan.stdout}${plan.stderr}`.slice(0, 4000));
  const show = sh('terraform', ['show', '-json', 'bench.tfplan'], { cwd: stackDir, env });
  if (show.status !== 0) fail(`terraform show in ${stackDir} failed:\n${show.stderr}`.slice(0, 4000));
  const changes = (JSON.parse(show.stdout).resource_changes ?? []).filter((c) => !c.change.actions.includes('no-op')).length;
  return { seconds: round(seconds), planFileBytes: fs.statSync(path.join(stackDir, 'bench.tfplan')).size, planJsonBytes: Buffer.byteLength(show.stdout), resourceChanges: changes };
}

/** a) the app against a trivial app with the same providers; b) cdktf synth end to end. */
function synthCosts() {
  log(`a) app synth vs trivial app (${RUNS} runs each)`);
  const app = repeat('node dist/main.js (example)', () => timed('node', ['dist/main.js'], synthApp('example', undefined, freshDir('app')), 'node dist/main.js'));
  const trivial = repeat('trivial app', () => timed('node', [path.join('scripts', 'bench', 'trivial-app.js')], { ...baseEnv, CDKTF_OUTDIR: freshDir('trivial') }, 'trivial app'));

  // b) cdktf synth end to end
  log(`b) npx cdktf synth (${RUNS} runs)`);
  const cli = repeat('npx cdktf synth (example)', () =>
    timed('npx', ['--no-install', 'cdktf', 'synth', '--output', freshDir('cli')], { ...baseEnv, ENVIRONMENT: 'example' }, 'npx cdktf synth'),
  );

  return { app, trivial, cli };
}

// Same-length environment names, so stack sizes differ only if the content does.
const envName = (stem, n) => `${stem}-n${String(n).padStart(3, '0')}`;
const COUNTS = [1, 10, 100];

/** c) 100 clusters: time and memory; d) one cluster stack at 1, 10, 100 clusters. */
async function scale(example) {
  log('c) synthesis of 100 clusters');
  const scaleDir = path.join(work, 'environments');
  for (const n of COUNTS) writeScaledEnvironment(scaleDir, envName('bench', n), example, n);
  const out100 = freshDir('n100');
  const hundred = await measured('node', ['dist/main.js'], synthApp(envName('bench', 100), scaleDir, out100), 'synthesis of 100 clusters');
  const stackCount = fs.readdirSync(path.join(out100, 'stacks')).length;
  log(`100 clusters: ${hundred.seconds} s, peak RSS ${hundred.peakRssMiB} MiB, ${stackCount} stacks`);

  // d) one cluster stack at 1, 10, 100 clusters
  log('d) size of one cluster stack at 1, 10, 100 clusters');
  const perCluster = {};
  for (const n of COUNTS) {
    let outdir = out100;
    if (n !== 100) {
      outdir = freshDir(`n${n}`);
      timed('node', ['dist/main.js'], synthApp(envName('bench', n), scaleDir, outdir), `synthesis of ${n} clusters`);
    }
    perCluster[n] = {
      clusterStack: stackStats(path.join(outdir, 'stacks', `${envName('bench', n)}-c000`, 'cdk.tf.json')),
      managementStack: stackStats(path.join(outdir, 'stacks', `${envName('bench', n)}-management`, 'cdk.tf.json')),
    };
  }

  return { hundred, stackCount, perCluster };
}

/** d) terraform plan of one cluster stack at 1, 10, 100 clusters, when the local services run. */
function plansOfOneCluster(YAML) {
  const blocker = planBlocker();
  let plans;
  if (blocker) {
    if (process.env.BENCH_PLAN === '1') fail(`plans requested (BENCH_PLAN=1) but ${blocker}`);
    log(`d) terraform plan skipped: ${blocker}`);
  } else {
    // A plan of a workload stack needs a reachable management cluster and cloud: the local
    // kube-apiserver (existingManagementCluster) and the local OpenStack. Plans create nothing.
    log('d) terraform plan of one cluster stack at 1, 10, 100 clusters (local cloud + local kube-apiserver)');
    const local = YAML.parse(fs.readFileSync(path.join(root, 'environments', 'local.yaml'), 'utf8'));
    const kubeconfig = path.join(CACHE, 'local-kube', 'kubeconfig');
    const tcEnv = { ...toolchainEnv(), OS_CLIENT_CONFIG_FILE: path.join(CACHE, 'local-cloud', 'clouds.yaml') };
    const planDir = path.join(work, 'plan-environments');
    plans = {};
    for (const n of COUNTS) {
      const name = envName('plan', n);
      writeScaledEnvironment(planDir, name, local, n, { existingManagementCluster: { kubeconfigFile: kubeconfig } });
      const outdir = freshDir(name);
      timed('node', ['dist/main.js'], { ...tcEnv, ...synthApp(name, planDir, outdir) }, `synthesis of ${name}`);
      const stackDir = path.join(outdir, 'stacks', `${name}-c000`);
      plans[n] = { clusterStack: stackStats(path.join(stackDir, 'cdk.tf.json')), plan: planStack(stackDir, tcEnv) };
      log(`plan of ${name}-c000: ${plans[n].plan.seconds} s, ${plans[n].plan.resourceChanges} changes`);
    }
  }

  return { plans, blocker };
}

/** The table and the results file. */
function report(results, { app, trivial, cli, hundred, perCluster, plans, blocker }) {
  const rows = [
    ['a) node dist/main.js, example (median)', `${app.medianSeconds.toFixed(3)} s`],
    ['a) trivial app, same providers (median)', `${trivial.medianSeconds.toFixed(3)} s`],
    ['a) ratio app / trivial', `${results.appSynth.ratio.toFixed(2)} x`],
    ['b) npx cdktf synth, example (median)', `${cli.medianSeconds.toFixed(3)} s`],
    ['c) 100 clusters: wall time', `${hundred.seconds.toFixed(2)} s`],
    ['c) 100 clusters: peak RSS', `${hundred.peakRssMiB} MiB`],
  ];
  process.stdout.write(`\n${table(['measure', 'value'], rows)}\n\n`);
  const sizeRows = COUNTS.map((n) => {
    const c = perCluster[n].clusterStack;
    const m = perCluster[n].managementStack;
    const p = plans?.[n]?.plan;
    return [n, c.bytes, c.resources, c.dataSources, m.bytes, p ? `${p.seconds.toFixed(1)} s` : '-', p ? p.resourceChanges : '-', p ? p.planJsonBytes : '-'];
  });
  process.stdout.write(
    `d) one cluster stack (c000) as the environment grows${plans ? ' (plan: local cloud variant of the environment)' : ` (plan skipped: ${blocker})`}\n` +
      `${table(['clusters', 'c000 bytes', 'resources', 'data', 'mgmt bytes', 'plan time', 'changes', 'plan json bytes'], sizeRows)}\n\n` +
      `results: ${path.relative(process.cwd(), OUTPUT) || OUTPUT}   total ${results.totalSeconds} s\n`,
  );
}

async function main() {
  const started = Date.now();
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('npm run build');
    timed('npm', ['run', '--silent', 'build'], baseEnv, 'npm run build');
  }
  if (!fs.existsSync(path.join(root, 'dist', 'main.js'))) fail('dist/main.js is missing: run npm run build');
  const YAML = loadYaml();
  const example = YAML.parse(fs.readFileSync(path.join(root, 'environments', 'example.yaml'), 'utf8'));
  const { app, trivial, cli } = synthCosts();
  const { hundred, stackCount, perCluster } = await scale(example);
  const { plans, blocker } = plansOfOneCluster(YAML);
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version },
    runs: RUNS,
    appSynth: { app, trivialApp: trivial, ratio: round(app.medianSeconds / trivial.medianSeconds, 2) },
    cdktfSynth: cli,
    hundredClusters: { ...hundred, stacks: stackCount },
    perClusterStack: perCluster,
    terraformPlan: plans ?? { skipped: blocker },
    totalSeconds: round((Date.now() - started) / 1000, 1),
  };
  fs.writeFileSync(OUTPUT, `${JSON.stringify(results, null, 2)}\n`);
  report(results, { app, trivial, cli, hundred, perCluster, plans, blocker });
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((e) => fail(e.stack || String(e)));
