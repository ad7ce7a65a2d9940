#!/usr/bin/env node
/*
 * CRD helper for scripts/local-kube (plain Node, only depends on the `yaml` package of this repo).
 *
 *   crd-tool.js extract --out DIR SOURCE...
 *       SOURCE is `<module>@<version>=<path to a config/crd directory>`. Reads the directory's
 *       kustomization.yaml (its `resources` and its `labels`/`commonLabels`), and writes
 *         DIR/upstream/<group>_<plural>.yaml  the CRD exactly as the module ships it
 *         DIR/install/<group>_<plural>.json   what scripts/local-kube/start applies:
 *                                             kustomize labels added, spec.conversion = None,
 *                                             cert-manager CA-injection annotations removed
 *         DIR/index.json                      which module each CRD came from
 *   crd-tool.js schemas --from DIR --out SCHEMA_DIR --versions JSON
 *       Writes SCHEMA_DIR/<group>_<plural>.json (group, kind, plural, scope and, per served
 *       version, name/served/storage/openAPIV3Schema without `description`) and SCHEMA_DIR/versions.json.
 *   crd-tool.js names --from DIR
 *       Prints the CRD names (<plural>.<group>), one a line.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');

function fail(msg) {
  process.stderr.write(`[crd-tool] ERROR: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      if (i + 1 >= argv.length) fail(`option ${a} needs a value`);
      opts[a.slice(2)] = argv[++i];
    } else {
      opts._.push(a);
    }
  }
  return opts;
}

function loadYamlDocs(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'));
  for (const d of docs) {
    if (d.errors.length) fail(`${file}: ${d.errors[0].message}`);
  }
  return docs.map((d) => d.toJS()).filter((d) => d != null);
}

function crdFileName(crd) {
  return `${crd.spec.group}_${crd.spec.names.plural}`;
}

function extract(opts) {
  const out = opts.out || fail('extract: --out DIR is required');
  if (opts._.length === 0) fail('extract: give at least one SOURCE (<module>@<version>=<dir>)');
  const tmp = `${out}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, 'upstream'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'install'), { recursive: true });
  const index = [];
  for (const source of opts._) {
    const eq = source.indexOf('=');
    if (eq < 0) fail(`bad SOURCE '${source}' (want <module>@<version>=<dir>)`);
    const origin = source.slice(0, eq);
    const dir = source.slice(eq + 1);
    const kfile = path.join(dir, 'kustomization.yaml');
    if (!fs.existsSync(kfile)) fail(`${kfile} not found`);
    const k = loadYamlDocs(kfile)[0] || {};
    const labels = { ...(k.commonLabels || {}) };
    for (const l of k.labels || []) Object.assign(labels, l.pairs || {});
    const resources = (k.resources || []).filter((r) => /\.ya?ml$/.test(r));
    if (resources.length === 0) fail(`${kfile} lists no CRD resources`);
    for (const rel of resources) {
      const file = path.join(dir, rel);
      for (const crd of loadYamlDocs(file)) {
        if (crd.kind !== 'CustomResourceDefinition') fail(`${file}: expected a CustomResourceDefinition, got ${crd.kind}`);
        const name = crdFileName(crd);
        if (index.some((e) => e.file === name)) fail(`CRD ${crd.metadata.name} found twice (second in ${file})`);
        fs.copyFileSync(file, path.join(tmp, 'upstream', `${name}.yaml`));
        const inst = JSON.parse(JSON.stringify(crd));
        inst.metadata.labels = { ...(inst.metadata.labels || {}), ...labels };
        const ann = inst.metadata.annotations || {};
        for (const key of Object.keys(ann)) if (key.startsWith('cert-manager.io/')) delete ann[key];
        // No conversion webhook runs next to the local API server: a Webhook strategy would make
        // every read/write in a non-storage version fail. None only rewrites apiVersion.
        inst.spec.conversion = { strategy: 'None' };
        fs.writeFileSync(path.join(tmp, 'install', `${name}.json`), JSON.stringify(inst) + '\n');
        index.push({ name: crd.metadata.name, file: name, source: origin, path: rel, labels });
      }
    }
  }
  index.sort((a, b) => a.file.localeCompare(b.file));
  fs.writeFileSync(path.join(tmp, 'index.json'), JSON.stringify(index, null, 2) + '\n');
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(tmp, out);
  process.stdout.write(`${index.length} CRDs\n`);
}

/** Removes the `description` keyword from a structural schema (never a property named description). */
function stripDescriptions(schema) {
  if (Array.isArray(schema)) return schema.map(stripDescriptions);
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = {};
      for (const [prop, sub] of Object.entries(value)) out.properties[prop] = stripDescriptions(sub);
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      out[key] = typeof value === 'object' ? stripDescriptions(value) : value;
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      out[key] = value.map(stripDescriptions);
    } else {
      // enum, default, example, x-kubernetes-*: data, copied as is.
      out[key] = value;
    }
  }
  return out;
}

function schemas(opts) {
  const from = opts.from || fail('schemas: --from DIR is required');
  const out = opts.out || fail('schemas: --out DIR is required');
  let versions;
  try {
    versions = JSON.parse(opts.versions || fail('schemas: --versions JSON is required'));
  } catch (e) {
    fail(`schemas: --versions is not JSON: ${e.message}`);
  }
  const index = JSON.parse(fs.readFileSync(path.join(from, 'index.json'), 'utf8'));
  fs.mkdirSync(out, { recursive: true });
  for (const f of fs.readdirSync(out)) if (f.endsWith('.json')) fs.rmSync(path.join(out, f));
  let total = 0;
  for (const entry of index) {
    const [crd] = loadYamlDocs(path.join(from, 'upstream', `${entry.file}.yaml`));
    const data = {
      name: crd.metadata.name,
      group: crd.spec.group,
      kind: crd.spec.names.kind,
      plural: crd.spec.names.plural,
      scope: crd.spec.scope,
      source: entry.source,
      // Only served versions: an unserved one can never be sent to the API server.
      versions: crd.spec.versions.filter((v) => v.served).map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        ...(v.deprecated ? { deprecated: true } : {}),
        openAPIV3Schema: stripDescriptions(v.schema && v.schema.openAPIV3Schema),
      })),
    };
    const text = JSON.stringify(data) + '\n';
    total += text.length;
    fs.writeFileSync(path.join(out, `${entry.file}.json`), text);
  }
  fs.writeFileSync(path.join(out, 'versions.json'), JSON.stringify({ ...versions, crds: index.map((e) => e.name) }, null, 2) + '\n');
  process.stdout.write(`${index.length} schema files, ${Math.round(total / 1024)} KiB\n`);
}

function names(opts) {
  const from = opts.from || fail('names: --from DIR is required');
  const index = JSON.parse(fs.readFileSync(path.join(from, 'index.json'), 'utf8'));
  process.stdout.write(index.map((e) => e.name).join('\n') + '\n');
}

const [cmd, ...rest] = process.argv.slice(2);
const opts = parseArgs(rest);
if (cmd === 'extract') extract(opts);
else if (cmd === 'schemas') schemas(opts);
else if (cmd === 'names') names(opts);
else fail(`unknown command '${cmd || ''}' (extract | schemas | names)`);
