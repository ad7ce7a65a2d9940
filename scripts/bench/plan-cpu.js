#!/usr/bin/env node
/**
 * `npm run bench`, part g: the CPU one `terraform plan` of one workload cluster stack costs, by
 * process. The stack is that of environments/local.yaml's cluster on a brought-your-own management
 * cluster (the local kube-apiserver) against the local cloud, as in fleet.js, never applied. Every
 * provider binary runs under `/usr/bin/time` (a dev_overrides CLI configuration pointing at small
 * wrappers), so each provider process reports its own user + system CPU; Terraform's own share is
 * the rest of the plan's total.
 *
 * Three variants of the same synthesized JSON, planned in alternating rounds (medians of
 * BENCH_PLAN_CPU_RUNS, default 3), tell where the Kubernetes provider's time goes:
 *   stack      the stack as synthesized
 *   no-objects without its kubernetes_manifest resources: what remains is the provider's fixed cost
 *              of typing any object (it converts the management cluster's whole OpenAPI document and
 *              lists every CRD, once per plan), paid here for the control-plane upgrade gate's
 *              kubernetes_resources data source
 *   floor      without the data source either: no OpenAPI conversion at all (what every other
 *              resource of the stack costs)
 * The ratios are against the floor and against the goal of issue 38 (1.1 CPU-seconds per cluster).
 *
 * Needs `npm run build`, the toolchain, /usr/bin/time, scripts/local-cloud/start and
 * scripts/local-kube/start; skipped with a message otherwise (BENCH_PLAN_CPU=1: fail instead,
 * BENCH_PLAN_CPU=0: skip). BENCH_PROJECT=<checkout> measures another checkout (built, with
 * node_modules). Writes bench-plan-cpu.json (BENCH_PLAN_CPU_OUTPUT).
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median, round, table } = require('./stats');

const REPO = path.resolve(__dirname, '..', '..');
const PROJECT = path.resolve(process.env.BENCH_PROJECT || REPO);
const RUNS = Math.max(1, Number(process.env.BENCH_PLAN_CPU_RUNS || 3));
const OUTPUT = path.resolve(REPO, process.env.BENCH_PLAN_CPU_OUTPUT || 'bench-plan-cpu.json');
const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE || path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const CLOUDS_YAML = path.join(process.env.LOCAL_CLOUD_STATE || path.join(CACHE, 'local-cloud'), 'clouds.yaml');
const KUBECONFIG = path.join(process.env.LOCAL_KUBE_STATE || path.join(CACHE, 'local-kube'), 'kubeconfig');
const GOAL_CPU_SECONDS = 1.1;
const VARIANTS = ['stack', 'no-objects', 'floor'];
const log = (line) => process.stderr.write(`bench plan-cpu: ${line}\n`);

function fail(message) {
  process.stderr.write(`bench plan-cpu: ERROR: ${message}\n`);
  process.exit(1);
}

/** Runs argv with the toolchain's environment (scripts/toolchain/env.sh) plus `env`. */
function toolchain(argv, cwd, env = {}) {
  // BENCH_TF_CLI_CONFIG replaces the toolchain's CLI configuration (env.sh sets its own)
  const script = 'source "$1" || exit 97; shift; if [ -n "${BENCH_TF_CLI_CONFIG:-}" ]; then export TF_CLI_CONFIG_FILE="$BENCH_TF_CLI_CONFIG"; fi; exec "$@"';
  return spawnSync('bash', ['-c', script, 'run', path.join(REPO, 'scripts', 'toolchain', 'env.sh'), ...argv], {
    cwd,
    env: { ...process.env, CHECKPOINT_DISABLE: '1', NO_COLOR: '1', ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

function blocker() {
  if (process.env.BENCH_PLAN_CPU === '0') return 'BENCH_PLAN_CPU=0';
  if (!fs.existsSync('/usr/bin/time')) return '/usr/bin/time is missing (it reports each provider process its CPU)';
  if (!fs.existsSync(path.join(PROJECT, 'dist', 'main.js'))) return `${PROJECT}/dist is missing (npm run build)`;
  for (const svc of ['local-cloud', 'local-kube']) {
    if (spawnSync(path.join(REPO, 'scripts', svc, 'status'), [], { encoding: 'utf8' }).status !== 0) return `${svc} is not running (scripts/${svc}/start)`;
  }
  if (toolchain(['true'], REPO).status !== 0) return 'the toolchain is not built (npm run toolchain)';
  return undefined;
}

/** Synthesizes environments/local.yaml's cluster alone on the local kube-apiserver; returns its stack folder. */
function synthesizeCluster(work) {
  const YAML = require(require.resolve('yaml', { paths: [PROJECT] }));
  const base = YAML.parse(fs.readFileSync(path.join(PROJECT, 'environments', 'local.yaml'), 'utf8'));
  const [template] = Object.values(base.clusters);
  const doc = { ...base, prefix: 'bcpu', existingManagementCluster: { kubeconfigFile: KUBECONFIG }, clusters: { c000: template } };
  delete doc.management;
  fs.mkdirSync(path.join(work, 'environments'));
  fs.writeFileSync(path.join(work, 'environments', 'cpu.yaml'), YAML.stringify(doc));
  const r = spawnSync('node', [path.join(PROJECT, 'dist', 'main.js')], {
    cwd: work,
    env: { ...process.env, ENVIRONMENT: 'cpu', ENVIRONMENTS_DIR: path.join(work, 'environments'), CDKTF_OUTDIR: path.join(work, 'cdktf.out') },
    encoding: 'utf8',
  });
  if (r.status !== 0) fail(`synthesis failed:\n${r.stderr}`);
  return path.join(work, 'cdktf.out', 'stacks', 'cpu-c000');
}

/** References to removed blocks go: depends_on entries, and preconditions that read them. */
function withoutBlocks(json, removed) {
  const refersToRemoved = (s) => typeof s === 'string' && removed.some((r) => s.includes(r));
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out = {};
    for (const [k, child] of Object.entries(v)) {
      if (k === 'depends_on') out[k] = child.filter((d) => !refersToRemoved(d));
      else if (k === 'lifecycle' && JSON.stringify(child).match(/precondition/) && refersToRemoved(JSON.stringify(child))) continue;
      else out[k] = walk(child);
    }
    return out;
  };
  return walk(json);
}

/** The three variants' folders (sharing the stack's .terraform and lock file). */
function variants(stackDir, work) {
  const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
  const manifests = Object.keys(json.resource.kubernetes_manifest ?? {});
  const dataSources = Object.keys(json.data?.kubernetes_resources ?? {});
  if (manifests.length === 0) fail('the cluster stack has no kubernetes_manifest resources: nothing to compare');
  const noObjects = structuredClone(json);
  delete noObjects.resource.kubernetes_manifest;
  const floor = structuredClone(noObjects);
  if (floor.data) delete floor.data.kubernetes_resources;
  const dirs = { stack: stackDir };
  for (const [name, doc, removed] of [
    ['no-objects', noObjects, manifests.map((m) => `kubernetes_manifest.${m}`)],
    ['floor', floor, [...manifests.map((m) => `kubernetes_manifest.${m}`), ...dataSources.map((d) => `data.kubernetes_resources.${d}`)]],
  ]) {
    const dir = path.join(work, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(withoutBlocks(doc, removed), null, 2));
    fs.copyFileSync(path.join(stackDir, '.terraform.lock.hcl'), path.join(dir, '.terraform.lock.hcl'));
    fs.symlinkSync(path.join(stackDir, '.terraform'), path.join(dir, '.terraform'));
    dirs[name] = dir;
  }
  return { dirs, manifests: manifests.length, dataSources: dataSources.length };
}

/**
 * A CLI configuration whose dev_overrides run every provider of the stack under /usr/bin/time,
 * appending "<provider> <user> <system>" to $PROVIDER_CPU_LOG per process.
 */
function timedProviders(stackDir, work) {
  const root = path.join(stackDir, '.terraform', 'providers');
  const overrides = [];
  for (const host of fs.readdirSync(root)) {
    for (const ns of fs.readdirSync(path.join(root, host))) {
      for (const type of fs.readdirSync(path.join(root, host, ns))) {
        const [version] = fs.readdirSync(path.join(root, host, ns, type));
        const platformDir = path.join(root, host, ns, type, version);
        const [platform] = fs.readdirSync(platformDir);
        const binDir = fs.realpathSync(path.join(platformDir, platform));
        const binary = path.join(binDir, fs.readdirSync(binDir).find((f) => f.startsWith(`terraform-provider-${type}`)));
        const wrapDir = path.join(work, 'providers', type);
        fs.mkdirSync(wrapDir, { recursive: true });
        const wrapper = path.join(wrapDir, `terraform-provider-${type}`);
        fs.writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/time -a -o "$PROVIDER_CPU_LOG" -f '${type} %U %S' '${binary}' "$@"\n`, { mode: 0o755 });
        overrides.push(`    "${ns}/${type}" = "${wrapDir}"`);
      }
    }
  }
  const rc = path.join(work, 'timed.tfrc');
  fs.writeFileSync(rc, `provider_installation {\n  dev_overrides {\n${overrides.join('\n')}\n  }\n}\ndisable_checkpoint = true\n`);
  return rc;
}

/** One plan: total CPU of Terraform and its children, and each provider process's own. */
function plan(dir, rc, work) {
  const cpuLog = path.join(work, 'providers.log');
  const total = path.join(work, 'total.log');
  fs.writeFileSync(cpuLog, '');
  const r = toolchain(['/usr/bin/time', '-o', total, '-f', '%U %S', 'terraform', 'plan', '-input=false', '-no-color', '-lock=false'], dir, {
    BENCH_TF_CLI_CONFIG: rc,
    PROVIDER_CPU_LOG: cpuLog,
    OS_CLIENT_CONFIG_FILE: CLOUDS_YAML,
    TF_IN_AUTOMATION: '1',
  });
  if (r.status !== 0) fail(`terraform plan in ${dir} failed (exit ${r.status}):\n${(r.stdout + r.stderr).slice(-3000)}`);
  const [user, system] = fs.readFileSync(total, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const providers = {};
  for (const line of fs.readFileSync(cpuLog, 'utf8').split('\n')) {
    const m = /^(\S+) ([\d.]+) ([\d.]+)$/.exec(line.trim());
    if (!m) continue;
    (providers[m[1]] ??= []).push(Number(m[2]) + Number(m[3]));
  }
  const providerSum = Object.values(providers).flat().reduce((a, b) => a + b, 0);
  return { total: user + system, terraform: user + system - providerSum, providers };
}

function main() {
  const why = blocker();
  if (why) {
    if (process.env.BENCH_PLAN_CPU === '1') fail(`plan CPU bench requested (BENCH_PLAN_CPU=1) but ${why}`);
    log(`skipped: ${why}`);
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-plan-cpu-'));
  try {
    const stackDir = synthesizeCluster(work);
    const init = toolchain(['terraform', 'init', '-input=false', '-no-color'], stackDir);
    if (init.status !== 0) fail(`terraform init failed:\n${init.stdout}${init.stderr}`);
    const { dirs, manifests, dataSources } = variants(stackDir, work);
    const rc = timedProviders(stackDir, work);
    const samples = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let run = 1; run <= RUNS; run++) {
      for (const v of VARIANTS) {
        const s = plan(dirs[v], rc, work);
        samples[v].push(s);
        log(`run ${run}/${RUNS} ${v}: ${s.total.toFixed(2)} CPU-s (Terraform ${s.terraform.toFixed(2)}, ${Object.entries(s.providers).map(([p, xs]) => `${p} ${xs.map((x) => x.toFixed(2)).join('+')}`).join(', ')})`);
      }
    }
    const summary = {};
    for (const v of VARIANTS) {
      const providerNames = [...new Set(samples[v].flatMap((s) => Object.keys(s.providers)))].sort();
      summary[v] = {
        totalCpuSeconds: round(median(samples[v].map((s) => s.total)), 2),
        terraformCpuSeconds: round(median(samples[v].map((s) => s.terraform)), 2),
        providers: Object.fromEntries(providerNames.map((p) => [p, {
          cpuSeconds: round(median(samples[v].map((s) => (s.providers[p] ?? []).reduce((a, b) => a + b, 0))), 2),
          // per process, in the order Terraform starts them (schema, validate, plan)
          perProcessCpuSeconds: (samples[v][0].providers[p] ?? []).map((_, i) => round(median(samples[v].map((s) => s.providers[p]?.[i] ?? 0)), 2)),
          processes: samples[v][0].providers[p]?.length ?? 0,
        }])),
      };
    }
    const floor = summary.floor.totalCpuSeconds;
    const rows = VARIANTS.map((v) => {
      const k = summary[v].providers.kubernetes;
      return [v, summary[v].totalCpuSeconds, summary[v].terraformCpuSeconds, k ? `${k.cpuSeconds} (${k.perProcessCpuSeconds.join(' + ')})` : '-',
        Object.entries(summary[v].providers).filter(([p]) => p !== 'kubernetes').map(([p, x]) => `${p} ${x.cpuSeconds}`).join(', '),
        `${(summary[v].totalCpuSeconds / floor).toFixed(2)}×`, `${(summary[v].totalCpuSeconds / GOAL_CPU_SECONDS).toFixed(2)}×`];
    });
    const result = {
      project: PROJECT, runs: RUNS, manifests, dataSources, goalCpuSeconds: GOAL_CPU_SECONDS, variants: summary,
      openApiFixedCpuSeconds: round(summary['no-objects'].totalCpuSeconds - floor, 2),
      objectsCpuSeconds: round(summary.stack.totalCpuSeconds - summary['no-objects'].totalCpuSeconds, 2),
    };
    fs.writeFileSync(OUTPUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `\ng) CPU of one \`terraform plan\` of a workload cluster stack (never applied), medians of ${RUNS} alternating rounds: ` +
        `stack = as synthesized (${manifests} kubernetes_manifest, ${dataSources} kubernetes_resources), no-objects = without the manifests, floor = without the data source too\n` +
        `${table(['variant', 'CPU-s', 'Terraform', 'kubernetes (schema + validate + plan)', 'other providers', 'vs floor', 'vs goal 1.1 s'], rows)}\n` +
        `the Kubernetes provider's fixed cost of typing objects (OpenAPI document + CRD list): ${result.openApiFixedCpuSeconds} CPU-s; the ${manifests} objects on top: ${result.objectsCpuSeconds} CPU-s\n` +
        `written to ${path.relative(REPO, OUTPUT)}\n`,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
