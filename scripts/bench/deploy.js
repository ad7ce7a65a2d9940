#!/usr/bin/env node
/**
 * `npm run bench`, part e: apply, no-change re-plan and destroy of a management stack on the local
 * cloud, three ways in one run, each figure as a ratio against its reference:
 *   old   the old tool's HCL ported to provider 3.x (scripts/bench/old-tool/main.tf), raw terraform
 *   raw   our local-management stack as raw `terraform` on cdktf's synthesized JSON
 *   cdktf the same stack through `cdktf deploy` / `diff` / `destroy`
 *   prev  with BENCH_PREVIOUS=<checkout>: raw `terraform` on the JSON that checkout synthesizes
 *         (a release or main, built, with node_modules): before/after in one alternating run
 * Rounds alternate (the order rotates each round, so contention on a shared machine hits every side
 * alike); medians of BENCH_DEPLOY_RUNS (3). After each destroy the project is listed and compared
 * with the listing before the first round: anything new is a leftover and fails the run. Also counts
 * the lines a cdktf deploy prints. Needs `npm run build`, the toolchain and `scripts/local-cloud/start`
 * (with Cinder); skipped with a message when the local cloud is not running (BENCH_DEPLOY=1: fail
 * instead).
 *
 *   BENCH_PROJECT=<checkout>     measure another checkout (built, with node_modules) for before/after
 *   BENCH_DEPLOY_SIDES=old,raw   measure only these sides (default old,raw,cdktf, and prev with
 *                                BENCH_PREVIOUS)
 *   OS_CLIENT_CONFIG_FILE=<file> the clouds.yaml whose `local-e2e` entry is used (an e2e lane's:
 *                                `scripts/e2e/lane env N`); default the local cloud's
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median } = require('./stats');

const REPO = path.resolve(__dirname, '..', '..');
const PROJECT = path.resolve(process.env.BENCH_PROJECT || REPO);
const RUNS = Number(process.env.BENCH_DEPLOY_RUNS || 3);
const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE || path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE || path.join(process.env.LOCAL_CLOUD_STATE || path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const CLOUD = 'local-e2e';
const STACK = 'local-management';
const PREVIOUS = process.env.BENCH_PREVIOUS ? path.resolve(process.env.BENCH_PREVIOUS) : undefined;
const ALL_SIDES = ['old', 'raw', 'cdktf', 'prev'];
const SIDES = (process.env.BENCH_DEPLOY_SIDES || ['old', 'raw', 'cdktf', ...(PREVIOUS ? ['prev'] : [])].join(',')).split(',').map((s) => s.trim());
const SIDE_NAMES = { old: 'old HCL (provider 3.x)', raw: 'raw terraform, our JSON', cdktf: 'cdktf', prev: 'raw terraform, previous JSON' };
const STEPS = ['apply', 'plan', 'destroy'];
const STEP_NAMES = { apply: 'management apply', plan: 'no-change re-plan', destroy: 'management destroy' };

/** Runs a command with the toolchain's environment; returns seconds, exit code and output. */
function timed(argv, cwd) {
  const env = { ...process.env, OS_CLIENT_CONFIG_FILE: CLOUDS_YAML, ENVIRONMENT: 'local', CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  const started = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', 'source "$1" || exit 97; shift; exec "$@"', 'run', path.join(REPO, 'scripts', 'toolchain', 'env.sh'), ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, code: r.status, output: `${r.stdout}${r.stderr}` };
}

function must(result, what) {
  if (result.code !== 0) {
    throw new Error(`${what} failed (exit ${result.code}):\n${result.output.split('\n').slice(-30).join('\n')}`);
  }
  return result;
}

/** What the project holds now ("<kind> <id> <name>" lines), through the local cloud's OpenStack SDK. */
function listing() {
  const r = must(timed(['/usr/bin/python3', path.join(__dirname, 'project-listing.py'), CLOUD], REPO), 'listing the project');
  return JSON.parse(r.output.slice(r.output.indexOf('[')));
}

/** A cdktf project of a checkout, holding only environments/local.yaml (and the old HCL beside it). */
function appDir(project) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-deploy-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  fs.copyFileSync(path.join(project, 'environments', 'local.yaml'), path.join(dir, 'environments', 'local.yaml'));
  const config = { language: 'typescript', app: `node ${path.join(project, 'dist', 'main.js')}`, projectId: 'capi-openstack-cdktf-bench', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} };
  fs.writeFileSync(path.join(dir, 'cdktf.json'), `${JSON.stringify(config, null, 2)}\n`);
  fs.mkdirSync(path.join(dir, 'old-tool'));
  fs.copyFileSync(path.join(__dirname, 'old-tool', 'main.tf'), path.join(dir, 'old-tool', 'main.tf'));
  must(timed([path.join(project, 'node_modules', '.bin', 'cdktf'), 'synth'], dir), `cdktf synth of ${project}`);
  for (const cwd of [path.join(dir, 'cdktf.out', 'stacks', STACK), path.join(dir, 'old-tool')]) must(timed(['terraform', 'init', '-input=false', '-no-color'], cwd), `terraform init in ${cwd}`);
  return dir;
}

/** apply, re-plan and destroy commands of one side; a re-plan must report no changes. */
function sideCommands(side, dir, previousDir) {
  const cdktf = path.join(PROJECT, 'node_modules', '.bin', 'cdktf');
  const tf = (cwd) => ({
    apply: [['terraform', 'apply', '-auto-approve', '-input=false', '-no-color'], cwd],
    plan: [['terraform', 'plan', '-detailed-exitcode', '-input=false', '-no-color'], cwd],
    destroy: [['terraform', 'destroy', '-auto-approve', '-input=false', '-no-color'], cwd],
    clean: (r) => r.code === 0,
  });
  if (side === 'old') return tf(path.join(dir, 'old-tool'));
  if (side === 'raw') return tf(path.join(dir, 'cdktf.out', 'stacks', STACK));
  if (side === 'prev') return tf(path.join(previousDir, 'cdktf.out', 'stacks', STACK));
  return {
    apply: [[cdktf, 'deploy', STACK, '--auto-approve'], dir],
    plan: [[cdktf, 'diff', STACK], dir],
    destroy: [[cdktf, 'destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], dir],
    clean: (r) => r.code === 0 && /No changes/.test(r.output),
  };
}

/** One round of one side: apply, re-plan (must be empty), destroy, then no leftovers. */
function round(side, dirs, before) {
  const c = sideCommands(side, dirs.app, dirs.previous);
  const apply = must(timed(...c.apply), `${side}: apply`);
  const plan = timed(...c.plan);
  if (!c.clean(plan)) throw new Error(`${side}: the re-plan after apply is not empty (exit ${plan.code}):\n${plan.output.slice(-3000)}`);
  const destroy = must(timed(...c.destroy), `${side}: destroy`);
  const leftovers = listing().filter((row) => !before.includes(row));
  if (leftovers.length > 0) throw new Error(`${side}: the destroy left ${leftovers.length} resources behind:\n${leftovers.join('\n')}`);
  return { apply, plan, destroy };
}

function measure() {
  const dirs = { app: appDir(PROJECT), previous: SIDES.includes('prev') ? appDir(PREVIOUS) : undefined };
  const seconds = Object.fromEntries(SIDES.map((s) => [s, { apply: [], plan: [], destroy: [] }]));
  let deployLines = 0;
  let destroys = 0;
  const before = listing();
  for (let run = 0; run < RUNS; run++) {
    const order = SIDES.map((_, i) => SIDES[(i + run) % SIDES.length]);
    const said = [];
    for (const side of order) {
      const r = round(side, dirs, before);
      destroys++;
      if (side === 'cdktf') deployLines = r.apply.output.split('\n').filter((l) => l.trim() !== '').length;
      for (const step of STEPS) seconds[side][step].push(r[step].seconds);
      said.push(`${side} ${STEPS.map((s) => r[s].seconds.toFixed(1)).join(' / ')} s`);
    }
    process.stderr.write(`[bench deploy] round ${run + 1}/${RUNS} (apply / re-plan / destroy): ${said.join(', ')}\n`);
  }
  for (const dir of Object.values(dirs)) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  return { seconds, deployLines, destroys };
}

/** Each figure against its reference: ours against the old HCL, cdktf against raw, raw against the previous JSON. */
function comparisons() {
  const pairs = [['raw', 'old'], ['cdktf', 'old'], ['cdktf', 'raw'], ['raw', 'prev'], ['prev', 'old']];
  return pairs.filter(([a, b]) => SIDES.includes(a) && SIDES.includes(b));
}

function report({ seconds, deployLines, destroys }) {
  const lines = [`| figure (median of ${RUNS} alternating rounds) | reference | ours | ratio |`, '| --- | --- | --- | --- |'];
  const result = { project: PROJECT, runs: RUNS, sides: SIDES, medians: {}, rounds: seconds, comparisons: [], deployLines, leftovers: 0, destroys };
  for (const side of SIDES) result.medians[side] = Object.fromEntries(STEPS.map((s) => [s, median(seconds[side][s])]));
  for (const step of STEPS) {
    for (const [ours, ref] of comparisons()) {
      const o = result.medians[ours][step];
      const r = result.medians[ref][step];
      result.comparisons.push({ step, ours, reference: ref, oursSeconds: o, referenceSeconds: r, ratio: o / r });
      lines.push(`| ${STEP_NAMES[step]}, ${SIDE_NAMES[ours]} | ${SIDE_NAMES[ref]}: ${r.toFixed(2)} s | ${o.toFixed(2)} s | ${(o / r).toFixed(2)}× |`);
    }
  }
  lines.push('', `leftovers after ${destroys} destroys: 0`);
  if (SIDES.includes('cdktf')) lines.push(`lines printed by one \`cdktf deploy ${STACK}\`: ${deployLines}`);
  console.log(lines.join('\n'));
  return result;
}

function main() {
  const unknown = SIDES.filter((s) => !ALL_SIDES.includes(s));
  if (unknown.length > 0 || SIDES.length === 0) throw new Error(`BENCH_DEPLOY_SIDES: expected some of ${ALL_SIDES.join(',')}, found '${process.env.BENCH_DEPLOY_SIDES}'`);
  if (SIDES.includes('prev') && !(PREVIOUS && fs.existsSync(path.join(PREVIOUS, 'dist', 'main.js')))) throw new Error(`BENCH_DEPLOY_SIDES names prev: BENCH_PREVIOUS must be a built checkout (found '${PREVIOUS ?? ''}', no dist/main.js there)`);
  if (!fs.existsSync(CLOUDS_YAML) || timed(['true'], REPO).code !== 0) {
    const why = `the local cloud (${CLOUDS_YAML}) or the toolchain is missing: run scripts/local-cloud/start and npm run toolchain`;
    if (process.env.BENCH_DEPLOY === '1') throw new Error(why);
    console.log(`e) deploy bench skipped: ${why}`);
    return;
  }
  const result = report(measure());
  const out = process.env.BENCH_DEPLOY_OUTPUT || path.join(REPO, 'bench-deploy-results.json');
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}

main();
