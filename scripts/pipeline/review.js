#!/usr/bin/env node
/**
 * Binds what the apply job runs to what was reviewed (scripts/pipeline/apply, plan).
 *
 * A saved plan carries its own copy of the configuration, and `terraform apply <plan>` runs that
 * copy, not the files beside it: a plan job that was taken over could save a plan of a
 * configuration of its own making (a `terraform_data` with a `local-exec`, which no plan text
 * shows) and the apply job would run it with its credentials. So the apply job synthesizes the
 * commit itself and refuses a plan unless
 *   - its configuration snapshot (`tfconfig/` in the plan file: every configuration file of every
 *     module, byte for byte, which is what Terraform evaluates at apply, provisioners included)
 *     equals the configuration files of the job's own synthesis,
 *   - its state backend (type, settings, workspace) equals the one `terraform init` set up in the
 *     job's own directory (a plan names where the apply writes the state, credentials and all),
 *   - the input variables it records equal the defaults the synthesis declares (the pipeline sets
 *     none),
 *   - its digests equal those the plan stage recorded in pipeline.json and showed in summary.md.
 * Files are compared as bytes, not as parsed JSON: a parser that reads a duplicated key otherwise
 * than Terraform's would let a difference through. `terraform show -json`'s `configuration` is
 * not used for the decision: it gives only the references of an expression that is not a
 * constant (in HCL files), so two different commands can look the same there.
 *
 *   review.js digests <planfile>
 *       "<config digest> <plan digest>" of a saved plan (the plan stage records them)
 *   review.js config-digest <stack dir>
 *       the config digest of a synthesized, initialized stack directory (what a reviewer can
 *       compute from the commit)
 *   review.js check <stack dir> <planfile> <config digest> <plan digest>
 *       exit 0 if the plan is the reviewed one of this directory's configuration; otherwise every
 *       difference found on stderr and exit 1
 *   review.js run-digest <pipeline.json>
 *       the digest of the whole run (environment, mode, commit, every stack's digests)
 */
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { PlanFileError, readPlanFile, shown } = require('./planfile');

const sha256 = () => crypto.createHash('sha256');
const hex = (hash) => `sha256:${hash.digest('hex')}`;

/** The files Terraform reads as configuration of a module directory (primary and override files). */
const isConfigFile = (name) => (name.endsWith('.tf') || name.endsWith('.tf.json')) && !name.startsWith('.') && !name.endsWith('~') && !(name.startsWith('#') && name.endsWith('#'));

/** The modules of an initialized stack directory, in the shape readPlanFile gives them. */
function directoryModules(stackDir) {
  const dataDir = path.resolve(stackDir, process.env.TF_DATA_DIR || '.terraform');
  const manifestFile = path.join(dataDir, 'modules', 'modules.json');
  const records = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')).Modules : [{ Key: '', Dir: '.' }];
  return records
    .map((r) => {
      const dir = path.resolve(stackDir, r.Dir);
      const files = new Map();
      for (const name of fs.readdirSync(dir).sort()) {
        if (isConfigFile(name) && fs.statSync(path.join(dir, name)).isFile()) files.set(name, fs.readFileSync(path.join(dir, name)));
      }
      return { key: r.Key, dir: r.Dir, source: r.Source ?? '', version: r.Version ?? '', files };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** SHA-256 over every module's identity and files (names sorted, lengths framed). */
function configDigest(modules) {
  const hash = sha256();
  const field = (s) => {
    const b = Buffer.from(String(s), 'utf8');
    hash.update(`${b.length}:`).update(b);
  };
  for (const m of modules) {
    field('module');
    [m.key, m.dir, m.source, m.version].forEach(field);
    for (const name of [...m.files.keys()].sort()) {
      field(name);
      hash.update(`${m.files.get(name).length}:`).update(m.files.get(name));
    }
  }
  return hex(hash);
}

const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const fileDigest = (file) => hex(sha256().update(fs.readFileSync(file)));

/** Up to `limit` JSON paths where two documents differ, said from the plan's side. */
function jsonDifferences(plan, own, where, out, limit = 8) {
  const mark = (v) => (JSON.stringify(v ?? null).includes('"provisioner"') ? ' (it holds a provisioner)' : '');
  if (out.length >= limit) return out;
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(plan) && isObject(own)) {
    for (const k of Object.keys(plan)) {
      if (!has(own, k)) out.push(`${where}${k} is only in the plan${mark(plan[k])}`);
      else jsonDifferences(plan[k], own[k], `${where}${k}.`, out, limit);
    }
    for (const k of Object.keys(own)) if (!has(plan, k)) out.push(`${where}${k} is missing from the plan`);
  } else if (Array.isArray(plan) && Array.isArray(own) && plan.length === own.length) {
    plan.forEach((v, i) => jsonDifferences(v, own[i], `${where.replace(/\.$/, '')}[${i}].`, out, limit));
  } else if (JSON.stringify(plan) !== JSON.stringify(own)) {
    out.push(`${where.replace(/\.$/, '')} differs${mark(plan)}`);
  }
  return out.slice(0, limit);
}

function fileDifferences(name, plan, own) {
  let a;
  let b;
  try {
    a = JSON.parse(plan.toString('utf8'));
    b = JSON.parse(own.toString('utf8'));
  } catch {
    return [`${name} differs (not JSON on both sides; first difference at byte ${firstDifference(plan, own)})`];
  }
  const paths = jsonDifferences(a, b, '', []);
  return paths.length > 0 ? paths.map((p) => `${name}: ${p}`) : [`${name} differs in its bytes at ${firstDifference(plan, own)} (the same JSON value: formatting or a duplicated key)`];
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function configDifferences(planModules, ownModules) {
  const out = [];
  const own = new Map(ownModules.map((m) => [m.key, m]));
  const planned = new Map(planModules.map((m) => [m.key, m]));
  const label = (key) => (key === '' ? 'root module' : `module ${JSON.stringify(key)}`);
  for (const m of planModules) {
    const o = own.get(m.key);
    if (!o) {
      out.push(`${label(m.key)} is only in the plan`);
      continue;
    }
    for (const f of ['dir', 'source', 'version']) if (m[f] !== o[f]) out.push(`${label(m.key)}: ${f} ${JSON.stringify(m[f])} in the plan, ${JSON.stringify(o[f])} here`);
    for (const [name, bytes] of m.files) {
      if (!o.files.has(name)) out.push(`${label(m.key)}: file ${name} is only in the plan`);
      else if (!bytes.equals(o.files.get(name))) out.push(...fileDifferences(m.key === '' ? name : `${m.key}/${name}`, bytes, o.files.get(name)));
    }
    for (const name of o.files.keys()) if (!m.files.has(name)) out.push(`${label(m.key)}: file ${name} is missing from the plan`);
  }
  for (const m of ownModules) if (!planned.has(m.key)) out.push(`${label(m.key)} is missing from the plan`);
  return out;
}

/** The backend `terraform init` configured in the directory; no record means the implicit local one. */
function directoryBackend(stackDir) {
  const file = path.resolve(stackDir, process.env.TF_DATA_DIR || '.terraform', 'terraform.tfstate');
  if (!fs.existsSync(file)) return { type: 'local', config: undefined };
  const backend = JSON.parse(fs.readFileSync(file, 'utf8')).backend ?? {};
  return { type: backend.type, config: backend.config ?? {} };
}

/** Setting names only: a backend setting may be a credential. */
function backendDifferences(plan, own) {
  const out = [];
  if (plan.type !== own.type) return [`the plan writes its state to a "${plan.type}" backend, this job's configuration to "${own.type}"`];
  const planConfig = plan.config ?? {};
  if (own.config === undefined) {
    const set = Object.keys(planConfig).filter((k) => planConfig[k] !== null);
    if (set.length > 0) out.push(`the plan sets ${set.join(', ')} of the local backend, this job's configuration none`);
  } else {
    const names = [...new Set([...Object.keys(planConfig), ...Object.keys(own.config)])].sort();
    const differing = names.filter((k) => canonical(planConfig[k] ?? null) !== canonical(own.config[k] ?? null));
    if (differing.length > 0) out.push(`the plan's ${plan.type} backend settings differ from this job's in: ${differing.join(', ')}`);
  }
  const workspace = process.env.TF_WORKSPACE || 'default';
  if (plan.workspace !== workspace) out.push(`the plan writes to workspace "${plan.workspace}", this job uses "${workspace}"`);
  return out;
}

/** JSON with object keys sorted. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

/** Variable name -> default of the root module's JSON files (cdktf writes JSON only). */
function declaredVariables(root) {
  const declared = new Map();
  for (const [name, bytes] of root.files) {
    if (!name.endsWith('.tf.json')) throw new PlanFileError(`${name} is not JSON: its variables cannot be checked`);
    const variables = JSON.parse(bytes.toString('utf8')).variable ?? {};
    if (typeof variables !== 'object' || Array.isArray(variables)) throw new PlanFileError(`${name}: "variable" is not an object of variables`);
    for (const [v, spec] of Object.entries(variables)) declared.set(v, spec?.default);
  }
  return declared;
}

/** A value given on the command line or in TF_VAR_* is recorded as the string Terraform converts. */
const sameValue = (recorded, declared) =>
  canonical(recorded) === canonical(declared) || (typeof recorded === 'string' && (typeof declared === 'number' || typeof declared === 'boolean') && recorded === String(declared));

/**
 * Terraform records only the variables given a value (a variable left at its default is read from
 * the configuration at apply), so each recorded one must be declared and equal its default. Names
 * only in messages: a variable may hold a secret.
 */
function variableDifferences(plan, declared) {
  const out = [];
  for (const name of Object.keys(plan)) {
    if (!declared.has(name)) out.push(`variable ${name} is set in the plan but not declared`);
    else if (declared.get(name) === undefined) out.push(`variable ${name} has no default, so the plan set it (the pipeline sets no variable)`);
    else if (!sameValue(plan[name], declared.get(name))) out.push(`variable ${name} holds another value than its default (the pipeline sets no variable)`);
  }
  return out;
}

function readPlan(planFile) {
  let bytes;
  try {
    bytes = fs.readFileSync(planFile);
  } catch (e) {
    throw new PlanFileError(`cannot read the saved plan ${planFile}: ${e.code ?? e.message}`);
  }
  try {
    return readPlanFile(bytes);
  } catch (e) {
    if (e instanceof PlanFileError) throw new PlanFileError(`${planFile} is not a saved plan this check can read: ${e.message}`);
    throw e;
  }
}

/** Every reason the plan is not the reviewed plan of the directory's configuration ([] = it is). */
function check(stackDir, planFile, expectedConfig, expectedPlan) {
  const plan = readPlan(planFile);
  const own = directoryModules(stackDir);
  const problems = configDifferences(plan.modules, own);
  problems.push(...backendDifferences(plan.backend, directoryBackend(stackDir)));
  const root = own.find((m) => m.key === '');
  problems.push(...variableDifferences(plan.variables, declaredVariables(root)));
  const planConfig = configDigest(plan.modules);
  if (planConfig !== expectedConfig) problems.push(`the plan's configuration digest is ${planConfig}, the reviewed summary names ${expectedConfig || '(none)'}`);
  const planDigest = fileDigest(planFile);
  if (planDigest !== expectedPlan) problems.push(`the plan file's digest is ${planDigest}, the reviewed summary names ${expectedPlan || '(none)'}`);
  return problems;
}

/** The digest of a whole plan run: what the summary asks reviewers to approve. */
function runDigest(doc) {
  const stacks = (doc.applyOrder ?? []).map((name) => {
    const s = (doc.stacks ?? []).find((x) => x.name === name) ?? {};
    return [name, s.configDigest ?? '', s.planDigest ?? ''];
  });
  return hex(sha256().update(canonical({ environment: doc.environment, mode: doc.mode, commit: doc.commit, stacks })));
}

module.exports = { check, configDigest, directoryModules, runDigest };

if (require.main === module) {
  const [cmd, ...args] = process.argv.slice(2);
  const out = (line) => process.stdout.write(`${line}\n`);
  try {
    switch (cmd) {
      case 'digests':
        out(`${configDigest(readPlan(args[0]).modules)} ${fileDigest(args[0])}`);
        break;
      case 'config-digest':
        out(configDigest(directoryModules(args[0])));
        break;
      case 'check': {
        const problems = check(args[0], args[1], args[2], args[3]);
        if (problems.length > 0) {
          process.stderr.write(problems.map((p) => `  - ${shown(p)}\n`).join(''));
          process.exit(1);
        }
        break;
      }
      case 'run-digest':
        out(runDigest(JSON.parse(fs.readFileSync(args[0], 'utf8'))));
        break;
      default:
        throw new PlanFileError(`unknown command ${cmd ?? '(none)'}; see the header of ${__filename}`);
    }
  } catch (e) {
    process.stderr.write(`  - ${e instanceof PlanFileError ? shown(e.message) : shown(e.stack, 2000)}\n`);
    process.exit(1);
  }
}
