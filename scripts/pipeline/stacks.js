#!/usr/bin/env node
/**
 * JSON helper of scripts/pipeline/plan and apply (bash stays free of JSON parsing).
 *
 *   stacks.js order <manifest.json> <environment> [--reverse]
 *       stack names of the environment, dependencies first (dependents first with --reverse)
 *   stacks.js waves <manifest.json> <environment> [--reverse]
 *       the same stacks in waves, one line each: a wave's stacks depend only on earlier waves
 *       (with --reverse: only earlier waves depend on them), so a wave's plans can run side by side
 *   stacks.js deps <manifest.json> <stack> [--reverse]
 *       direct dependencies of <stack> (its direct dependents with --reverse)
 *   stacks.js backend-override <stacks-dir> <type> <config-json>
 *       writes zz_pipeline_backend_override.tf.json into every stack directory: the stack's own
 *       backend and its cross-stack terraform_remote_state data sources use <type> with
 *       <config-json>, where "{stack}" in any string value is the stack the state belongs to
 *   stacks.js backend-types <stacks-dir>
 *       the state backend type(s) of the synthesized stacks, pipeline override included
 *   stacks.js app <cdktf.json>
 *       the app command of the cdktf project
 *   stacks.js plan-counts [<saved plan>]   (without one: terraform show -json on stdin)
 *       "<add> <change> <destroy> <replace>" of the resource changes; nothing else is kept
 *   stacks.js check-order <manifest.json> <environment> <mode> [<stack>...]
 *       fails unless every stack is one of the manifest's, listed in an order the apply (mode
 *       apply: dependencies first) or destroy (dependents first) may run them
 *   stacks.js record <pipeline.json> <stack> <status> [<detail>] [<counts>] [<seconds>] [<digests>]
 *   stacks.js record-lines <pipeline.json>   the same fields tab-separated on stdin, a stack a line
 *       (<digests>: "<config digest> <plan digest>" of a saved plan, scripts/pipeline/review.js)
 *   stacks.js get <pipeline.json> <field>   (applyOrder | deferred | drifted | environment | mode | commit | root | backend | changes)
 *   stacks.js get <pipeline.json> digests <stack>   "<config digest> <plan digest>" recorded for the stack
 *   stacks.js status <pipeline.json> <stack>  recorded status of a stack, "none" if not recorded
 *   stacks.js summary <pipeline.json>         Markdown table of the plan stage
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { summary } = require('./summary');

const OVERRIDE_FILE = 'zz_pipeline_backend_override.tf.json';

function die(message) {
  process.stderr.write(`pipeline: ${message}\n`);
  process.exit(1);
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    die(`cannot read ${file}: ${e.message}`);
  }
}

/** The plan stage synthesizes one environment, so every stack of the manifest is one of its stacks. */
function stacksOf(manifest, environment) {
  const all = manifest.stacks ?? {};
  const mine = Object.keys(all);
  const foreign = mine.filter((s) => !s.startsWith(`${environment}-`));
  if (foreign.length > 0) die(`the synthesized app holds stacks of other environments: ${foreign.join(', ')}`);
  return { all, mine };
}

/** Stacks in waves (Kahn's levels), names sorted inside a wave so runs are reproducible. */
function waves(manifest, environment, reverse) {
  const { all, mine } = stacksOf(manifest, environment);
  const pending = new Set(mine);
  const levels = [];
  while (pending.size > 0) {
    const ready = [...pending].filter((s) => (all[s].dependencies ?? []).every((d) => !pending.has(d))).sort();
    if (ready.length === 0) die(`dependency cycle among ${[...pending].join(', ')}`);
    for (const s of ready) pending.delete(s);
    levels.push(ready);
  }
  return reverse ? levels.reverse() : levels;
}

/** Topological order, dependencies first (dependents first with reverse). */
function order(manifest, environment, reverse) {
  return waves(manifest, environment, reverse).flat();
}

/** The apply stage runs pipeline.json's applyOrder only if this synthesis agrees with it. */
function checkOrder(manifest, environment, mode, stacks) {
  if (mode !== 'apply' && mode !== 'destroy') die(`the saved plans are of mode "${mode}", not apply or destroy`);
  const known = order(manifest, environment, mode === 'destroy');
  let last = -1;
  for (const stack of stacks) {
    const at = known.indexOf(stack);
    if (at < 0) die(`the saved plans name stack ${stack}, which this job's synthesis of environment ${environment} does not have (its stacks: ${known.join(', ')})`);
    if (at <= last) die(`the saved plans list ${stack} after ${known[last]}, but ${mode === 'destroy' ? 'a stack is destroyed before what it depends on' : 'a stack is applied after what it depends on'} (order here: ${known.join(', ')})`);
    last = at;
  }
}

function deps(manifest, stack, reverse) {
  const all = manifest.stacks ?? {};
  if (!all[stack]) die(`stack ${stack} is not in the manifest`);
  if (!reverse) return [...(all[stack].dependencies ?? [])];
  return Object.keys(all).filter((s) => (all[s].dependencies ?? []).includes(stack));
}

function substitute(value, stack) {
  if (typeof value === 'string') return value.split('{stack}').join(stack);
  if (Array.isArray(value)) return value.map((v) => substitute(v, stack));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, stack)]));
  return value;
}

function backendOverride(stacksDir, type, configJson) {
  let config;
  try {
    config = JSON.parse(configJson);
  } catch (e) {
    die(`PIPELINE_BACKEND_CONFIG is not valid JSON: ${e.message}`);
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) die('PIPELINE_BACKEND_CONFIG must be a JSON object of backend settings');
  for (const stack of fs.readdirSync(stacksDir)) {
    const file = path.join(stacksDir, stack, 'cdk.tf.json');
    if (!fs.existsSync(file)) continue;
    const json = readJson(file);
    const override = { terraform: { backend: { [type]: substitute(config, stack) } } };
    const remote = json.data?.terraform_remote_state ?? {};
    for (const [name, ds] of Object.entries(remote)) {
      // cdktf names the state a cross-stack reference reads by the producing stack's local path.
      const source = /terraform\.(.+)\.tfstate$/.exec(ds.config?.path ?? '')?.[1];
      if (!source) die(`${file}: terraform_remote_state "${name}" does not read a cdktf local state (config ${JSON.stringify(ds.config)})`);
      override.data = override.data ?? { terraform_remote_state: {} };
      override.data.terraform_remote_state[name] = { backend: type, config: substitute(config, source) };
    }
    fs.writeFileSync(path.join(stacksDir, stack, OVERRIDE_FILE), `${JSON.stringify(override, null, 2)}\n`);
  }
}

function backendTypes(stacksDir) {
  const types = new Set();
  for (const stack of fs.readdirSync(stacksDir)) {
    const dir = path.join(stacksDir, stack);
    if (!fs.existsSync(path.join(dir, 'cdk.tf.json'))) continue;
    const override = path.join(dir, OVERRIDE_FILE);
    const json = readJson(fs.existsSync(override) ? override : path.join(dir, 'cdk.tf.json'));
    const backend = json.terraform?.backend;
    if (backend && Object.keys(backend).length > 0) types.add(Object.keys(backend)[0]);
    else if (json.terraform?.cloud) types.add('cloud');
    else types.add('local'); // no backend block: Terraform's default, local state in the working directory
  }
  return [...types].sort();
}

function planCounts(planFile) {
  if (planFile) {
    const { planChangeCounts } = require('./planfile');
    let n;
    try {
      n = planChangeCounts(fs.readFileSync(planFile));
    } catch (e) {
      die(`cannot count the changes of ${planFile}: ${e.message}`);
    }
    process.stdout.write(`${n.create} ${n.update} ${n.delete} ${n.replace}\n`);
    return;
  }
  const plan = JSON.parse(fs.readFileSync(0, 'utf8'));
  const n = { create: 0, update: 0, delete: 0, replace: 0 };
  for (const rc of plan.resource_changes ?? []) {
    const a = rc.change?.actions ?? [];
    if (a.includes('create') && a.includes('delete')) n.replace++;
    else if (a.includes('create')) n.create++;
    else if (a.includes('update')) n.update++;
    else if (a.includes('delete')) n.delete++;
  }
  process.stdout.write(`${n.create} ${n.update} ${n.delete} ${n.replace}\n`);
}

/** Records the results of stacks in pipeline.json, in order; each is [stack, status, detail, counts, seconds, digests]. */
function record(file, results) {
  const doc = readJson(file);
  for (const [stack, status, detail, counts, seconds, digests] of results) {
    const entry = { name: stack, status };
    if (detail) entry.detail = detail;
    if (seconds) entry.seconds = Number(seconds);
    if (counts) {
      const [add, change, destroy, replace] = counts.split(' ').map(Number);
      entry.changes = { add, change, destroy, replace };
    }
    if (digests) {
      const [configDigest, planDigest] = digests.split(' ');
      Object.assign(entry, { configDigest, planDigest });
    }
    doc.stacks = (doc.stacks ?? []).filter((s) => s.name !== stack).concat(entry);
    if (status === 'changes') doc.applyOrder = (doc.applyOrder ?? []).filter((s) => s !== stack).concat(stack);
  }
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

/** The tab-separated records of a wave (one node start for the wave instead of one per stack). */
function recordLines(file, text) {
  record(file, text.split('\n').filter(Boolean).map((line) => line.split('\t')));
}

function get(file, field, stack) {
  const doc = readJson(file);
  const stacks = doc.stacks ?? [];
  switch (field) {
    case 'digests': {
      const s = stacks.find((x) => x.name === stack) ?? {};
      return [s.configDigest, s.planDigest].map((d) => (typeof d === 'string' && /^sha256:[0-9a-f]{64}$/.test(d) ? d : '-')).join(' ');
    }
    case 'applyOrder':
      return (doc.applyOrder ?? []).join('\n');
    case 'deferred':
      return stacks.filter((s) => s.status === 'deferred').map((s) => `${s.name} (${s.detail})`).join('\n');
    case 'changes':
      return String((doc.applyOrder ?? []).length);
    case 'drifted':
      return stacks.filter((s) => s.status === 'drift').map((s) => s.name).join('\n');
    default:
      if (!(field in doc)) die(`${file} has no field ${field}`);
      return String(doc[field]);
  }
}

function status(file, stack) {
  return (readJson(file).stacks ?? []).find((s) => s.name === stack)?.status ?? 'none';
}

const [cmd, ...args] = process.argv.slice(2);
const reverse = args.includes('--reverse');
const positional = args.filter((a) => a !== '--reverse');
switch (cmd) {
  case 'order':
    process.stdout.write(order(readJson(positional[0]), positional[1], reverse).join('\n') + '\n');
    break;
  case 'waves':
    process.stdout.write(waves(readJson(positional[0]), positional[1], reverse).map((w) => w.join(' ')).join('\n') + '\n');
    break;
  case 'check-order':
    checkOrder(readJson(positional[0]), positional[1], positional[2], positional.slice(3));
    break;
  case 'deps':
    process.stdout.write(deps(readJson(positional[0]), positional[1], reverse).join('\n') + '\n');
    break;
  case 'backend-override':
    backendOverride(positional[0], positional[1], positional[2]);
    break;
  case 'backend-types':
    process.stdout.write(`${backendTypes(positional[0]).join('\n')}\n`);
    break;
  case 'app': {
    const app = readJson(positional[0]).app;
    if (typeof app !== 'string' || !app.trim()) die(`${positional[0]} has no "app" command`);
    process.stdout.write(`${app}\n`);
    break;
  }
  case 'plan-counts':
    planCounts(positional[0]);
    break;
  case 'record':
    record(positional[0], [positional.slice(1)]);
    break;
  case 'record-lines':
    recordLines(positional[0], fs.readFileSync(0, 'utf8'));
    break;
  case 'status':
    process.stdout.write(`${status(positional[0], positional[1])}\n`);
    break;
  case 'summary':
    process.stdout.write(`${summary(readJson(positional[0]))}\n`);
    break;
  case 'get': {
    const out = get(positional[0], positional[1], positional[2]);
    if (out) process.stdout.write(`${out}\n`);
    break;
  }
  default:
    die(`unknown command ${cmd ?? '(none)'}; see the header of ${__filename}`);
}
