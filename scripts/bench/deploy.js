#!/usr/bin/env node
/**
 * `npm run bench`, part e: deploy, re-plan and destroy of the management stack of
 * environments/local.yaml on the local cloud, through cdktf and through raw Terraform on the same
 * synthesized JSON, alternating, medians of BENCH_DEPLOY_RUNS (3). Also counts the lines a cdktf
 * deploy prints. Needs `npm run build`, the toolchain and `scripts/local-cloud/start` (with Cinder);
 * skipped with a message when the local cloud is not running (BENCH_DEPLOY=1: fail instead).
 *
 *   BENCH_PROJECT=<checkout>  measure another checkout (built, with node_modules) for before/after
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
const CLOUDS_YAML = path.join(process.env.LOCAL_CLOUD_STATE || path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const STACK = 'local-management';

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

/** A cdktf project of the measured checkout, holding only environments/local.yaml. */
function appDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-deploy-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  fs.copyFileSync(path.join(PROJECT, 'environments', 'local.yaml'), path.join(dir, 'environments', 'local.yaml'));
  const config = { language: 'typescript', app: `node ${path.join(PROJECT, 'dist', 'main.js')}`, projectId: 'capi-openstack-cdktf-bench', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} };
  fs.writeFileSync(path.join(dir, 'cdktf.json'), `${JSON.stringify(config, null, 2)}\n`);
  return dir;
}


function measure() {
  const dir = appDir();
  const cdktf = path.join(PROJECT, 'node_modules', '.bin', 'cdktf');
  const stackDir = path.join(dir, 'cdktf.out', 'stacks', STACK);
  const rows = { cdktf: { deploy: [], plan: [], destroy: [] }, terraform: { deploy: [], plan: [], destroy: [] } };
  let deployLines = 0;
  must(timed([cdktf, 'synth'], dir), 'cdktf synth');
  must(timed(['terraform', 'init', '-input=false', '-no-color'], stackDir), 'terraform init');
  for (let run = 1; run <= RUNS; run++) {
    const deploy = must(timed([cdktf, 'deploy', STACK, '--auto-approve'], dir), 'cdktf deploy');
    deployLines = deploy.output.split('\n').filter((l) => l.trim() !== '').length;
    const plan = must(timed([cdktf, 'diff', STACK], dir), 'cdktf plan');
    if (!/No changes/.test(plan.output)) throw new Error(`the re-plan after cdktf deploy is not empty:\n${plan.output.slice(-3000)}`);
    const destroy = must(timed([cdktf, 'destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], dir), 'cdktf destroy');
    for (const [k, r] of Object.entries({ deploy, plan, destroy })) rows.cdktf[k].push(r.seconds);
    const apply = must(timed(['terraform', 'apply', '-auto-approve', '-input=false', '-no-color'], stackDir), 'terraform apply');
    const replan = timed(['terraform', 'plan', '-detailed-exitcode', '-input=false', '-no-color'], stackDir);
    if (replan.code !== 0) throw new Error(`the re-plan after terraform apply is not empty (exit ${replan.code}):\n${replan.output.slice(-3000)}`);
    const rawDestroy = must(timed(['terraform', 'destroy', '-auto-approve', '-input=false', '-no-color'], stackDir), 'terraform destroy');
    for (const [k, r] of Object.entries({ deploy: apply, plan: replan, destroy: rawDestroy })) rows.terraform[k].push(r.seconds);
    process.stderr.write(`[bench deploy] run ${run}/${RUNS}: cdktf ${deploy.seconds.toFixed(1)} / ${plan.seconds.toFixed(1)} / ${destroy.seconds.toFixed(1)} s, terraform ${apply.seconds.toFixed(1)} / ${replan.seconds.toFixed(1)} / ${rawDestroy.seconds.toFixed(1)} s\n`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { rows, deployLines };
}

function report({ rows, deployLines }) {
  const lines = ['| step (median of ' + RUNS + ') | cdktf | raw terraform, same JSON | ratio |', '| --- | --- | --- | --- |'];
  const result = { project: PROJECT, runs: RUNS, deployLines, steps: {} };
  for (const step of ['deploy', 'plan', 'destroy']) {
    const c = median(rows.cdktf[step]);
    const t = median(rows.terraform[step]);
    result.steps[step] = { cdktfSeconds: c, terraformSeconds: t, ratio: c / t };
    lines.push(`| ${step === 'plan' ? 're-plan (no changes)' : step} | ${c.toFixed(1)} s | ${t.toFixed(1)} s | ${(c / t).toFixed(2)}× |`);
  }
  lines.push('', `lines printed by one \`cdktf deploy ${STACK}\`: ${deployLines}`);
  console.log(lines.join('\n'));
  return result;
}

function main() {
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
