#!/usr/bin/env node
/**
 * `npm run bench`, part h: the cdktf CLI's own fixed cost per command, the floor under part e's
 * ratios. An app with one stack holding one output and nothing else (no provider, no resource: its
 * synthesis and Terraform's work are as small as they get) is deployed, planned again and destroyed
 * through `cdktf deploy/diff/destroy`, and through raw `terraform apply/plan/destroy` on the same
 * synthesized JSON, in alternating rounds (medians of BENCH_CLI_FLOOR_RUNS, default 3). Also
 * `cdktf --version` (the CLI starting and doing nothing) and the app alone (`node app.js`).
 * The difference per command is what the CLI adds to any stack, ours included: a command on our
 * management stack cannot be faster than raw Terraform plus this.
 *
 * Needs the toolchain (no cloud); BENCH_CLI_FLOOR=0 skips it. BENCH_PROJECT=<checkout> takes cdktf
 * and its CLI from another checkout's node_modules. Writes bench-cli-floor.json
 * (BENCH_CLI_FLOOR_OUTPUT).
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median, round, table } = require('./stats');

const REPO = path.resolve(__dirname, '..', '..');
const PROJECT = path.resolve(process.env.BENCH_PROJECT || REPO);
const RUNS = Math.max(1, Number(process.env.BENCH_CLI_FLOOR_RUNS || 3));
const OUTPUT = path.resolve(REPO, process.env.BENCH_CLI_FLOOR_OUTPUT || 'bench-cli-floor.json');
const STACK = 'floor';
const log = (line) => process.stderr.write(`bench cli-floor: ${line}\n`);

function fail(message) {
  process.stderr.write(`bench cli-floor: ERROR: ${message}\n`);
  process.exit(1);
}

/**
 * Wall seconds and CPU seconds (user + system of the command and every process it waited for, from
 * /usr/bin/time when present: robust on a busy machine, where wall times stretch) of one command
 * run with the toolchain's environment; fails on an unexpected exit code.
 */
function timed(argv, cwd, codes = [0]) {
  const env = { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  delete env.ENVIRONMENT;
  const cpuFile = path.join(os.tmpdir(), `bench-cli-floor-cpu-${process.pid}`);
  const withTime = fs.existsSync('/usr/bin/time') ? ['/usr/bin/time', '-o', cpuFile, '-f', '%U %S', ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', 'source "$1" || exit 97; shift; exec "$@"', 'run', path.join(REPO, 'scripts', 'toolchain', 'env.sh'), ...withTime], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (!codes.includes(r.status)) fail(`${argv.join(' ')} exited ${r.status}:\n${(r.stdout + r.stderr).slice(-3000)}`);
  const cpu = withTime === argv ? NaN : fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number).reduce((a, b) => a + b, 0);
  return { seconds, cpu };
}

/** The smallest cdktf project: one stack, one output, local state in the project folder. */
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cli-floor-'));
  const cdktf = require.resolve('cdktf', { paths: [PROJECT] });
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `const { App, TerraformStack, TerraformOutput, LocalBackend } = require(${JSON.stringify(cdktf)});\n` +
      `const app = new App();\nconst stack = new TerraformStack(app, ${JSON.stringify(STACK)});\n` +
      `new LocalBackend(stack, { path: ${JSON.stringify(path.join(dir, 'floor.tfstate'))} });\n` +
      `new TerraformOutput(stack, 'answer', { value: 'floor' });\napp.synth();\n`,
  );
  const config = { language: 'typescript', app: 'node app.js', projectId: 'capi-openstack-cdktf-cli-floor', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} };
  fs.writeFileSync(path.join(dir, 'cdktf.json'), `${JSON.stringify(config, null, 2)}\n`);
  return dir;
}

function main() {
  if (process.env.BENCH_CLI_FLOOR === '0') return log('skipped: BENCH_CLI_FLOOR=0');
  const cli = path.join(PROJECT, 'node_modules', '.bin', 'cdktf');
  if (!fs.existsSync(cli)) fail(`${cli} is missing (npm ci in ${PROJECT})`);
  if (spawnSync('bash', ['-c', 'source "$1"', 'run', path.join(REPO, 'scripts', 'toolchain', 'env.sh')], { stdio: 'ignore' }).status !== 0) {
    return log('skipped: the toolchain is not built (npm run toolchain)');
  }
  const dir = project();
  const stackDir = path.join(dir, 'cdktf.out', 'stacks', STACK);
  try {
    timed([cli, 'synth'], dir);
    timed(['terraform', 'init', '-input=false', '-no-color'], stackDir);
    const steps = { version: [], app: [], cdktfDeploy: [], cdktfDiff: [], cdktfDestroy: [], apply: [], plan: [], destroy: [] };
    for (let run = 1; run <= RUNS; run++) {
      steps.version.push(timed([cli, '--version'], dir));
      steps.app.push(timed(['node', 'app.js'], dir));
      steps.cdktfDeploy.push(timed([cli, 'deploy', STACK, '--auto-approve'], dir));
      steps.cdktfDiff.push(timed([cli, 'diff', STACK], dir));
      steps.cdktfDestroy.push(timed([cli, 'destroy', STACK, '--auto-approve'], dir));
      steps.apply.push(timed(['terraform', 'apply', '-auto-approve', '-input=false', '-no-color'], stackDir));
      steps.plan.push(timed(['terraform', 'plan', '-detailed-exitcode', '-input=false', '-no-color'], stackDir));
      steps.destroy.push(timed(['terraform', 'destroy', '-auto-approve', '-input=false', '-no-color'], stackDir));
      const show = (keys) => keys.map((k) => `${steps[k][run - 1].seconds.toFixed(2)} s (${steps[k][run - 1].cpu.toFixed(2)} CPU-s)`).join(' / ');
      log(`run ${run}/${RUNS}: cdktf ${show(['cdktfDeploy', 'cdktfDiff', 'cdktfDestroy'])}, terraform ${show(['apply', 'plan', 'destroy'])}`);
    }
    const m = Object.fromEntries(Object.entries(steps).map(([k, xs]) => [k, { seconds: round(median(xs.map((x) => x.seconds)), 2), cpuSeconds: round(median(xs.map((x) => x.cpu)), 2) }]));
    const rows = [
      ['deploy / apply', m.cdktfDeploy, m.apply],
      ['diff / plan (no changes)', m.cdktfDiff, m.plan],
      ['destroy', m.cdktfDestroy, m.destroy],
    ].map(([what, c, t]) => [what, `${c.seconds} s`, `${t.seconds} s`, `${round(c.seconds - t.seconds, 2)} s`, `${(c.seconds / t.seconds).toFixed(2)}×`, `${c.cpuSeconds} / ${t.cpuSeconds}`, `${round(c.cpuSeconds - t.cpuSeconds, 2)}`]);
    const result = {
      project: PROJECT, runs: RUNS, median: m,
      added: Object.fromEntries([['deploy', 'cdktfDeploy', 'apply'], ['diff', 'cdktfDiff', 'plan'], ['destroy', 'cdktfDestroy', 'destroy']].map(([k, c, t]) => [k, { seconds: round(m[c].seconds - m[t].seconds, 2), cpuSeconds: round(m[c].cpuSeconds - m[t].cpuSeconds, 2) }])),
    };
    fs.writeFileSync(OUTPUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `\nh) the cdktf CLI's own cost per command: an app with one output and no resource, medians of ${RUNS} alternating rounds\n` +
        `${table(['command', 'cdktf', 'raw terraform, same JSON', 'added by cdktf', 'ratio', 'CPU-s cdktf / terraform', 'CPU-s added'], rows)}\n` +
        `\`cdktf --version\`: ${m.version.seconds} s (${m.version.cpuSeconds} CPU-s); the app alone (node app.js): ${m.app.seconds} s (${m.app.cpuSeconds} CPU-s)\n` +
        `written to ${path.relative(process.cwd(), OUTPUT)}\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(os.tmpdir(), `bench-cli-floor-cpu-${process.pid}`), { force: true });
  }
}

main();
