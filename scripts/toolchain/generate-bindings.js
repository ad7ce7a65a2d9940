#!/usr/bin/env node
// Regenerates the TypeScript provider bindings in lib/gen from the committed provider schemas
// (schemas/providers/<provider>.json or .json.gz, written by scripts/toolchain/schemas.sh) with the
// cdktf provider generator shipped in node_modules (@cdktf/provider-generator, the code behind
// `cdktf get`). Needs neither Go nor Terraform.
//
// Which resources and data sources are generated is configured in scripts/toolchain/bindings.json.
//
//   node scripts/toolchain/generate-bindings.js            # rewrite lib/gen
//   node scripts/toolchain/generate-bindings.js --out DIR  # write elsewhere (used by check-bindings.js)
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const REPO = path.resolve(__dirname, '..', '..');
const SCHEMA_DIR = path.join(REPO, 'schemas', 'providers');
const BINDINGS_CONFIG = path.join(__dirname, 'bindings.json');
const DEFAULT_OUT = path.join(REPO, 'lib', 'gen');

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${path.relative(REPO, file)}: ${err.message}`);
  }
}

/** Loads schemas/providers/<name>.json, or <name>.json.gz when the plain file is absent. */
function loadProviderSchema(name, schemaDir = SCHEMA_DIR) {
  const plain = path.join(schemaDir, `${name}.json`);
  const gz = `${plain}.gz`;
  let text;
  if (fs.existsSync(plain)) text = fs.readFileSync(plain, 'utf8');
  else if (fs.existsSync(gz)) text = zlib.gunzipSync(fs.readFileSync(gz)).toString('utf8');
  else {
    throw new Error(
      `no schema for provider "${name}" (${path.relative(REPO, plain)}[.gz]); run scripts/toolchain/schemas.sh`,
    );
  }
  return JSON.parse(text);
}

/** Keeps only the configured resources / data sources; fails on names the schema does not have. */
function filterSchema(name, schema, selection) {
  const fqpns = Object.keys(schema.provider_schemas || {});
  if (fqpns.length !== 1) {
    throw new Error(`schema of "${name}" must describe exactly one provider, found: ${fqpns.join(', ') || 'none'}`);
  }
  const fqpn = fqpns[0];
  const provider = schema.provider_schemas[fqpn];
  const pick = (kind, all, wanted) => {
    if (wanted === '*') return all || {};
    if (!Array.isArray(wanted)) {
      throw new Error(`bindings.json: providers.${name}.${kind} must be an array of names or "*"`);
    }
    const out = {};
    const missing = [];
    for (const short of [...wanted].sort()) {
      const type = `${name}_${short}`;
      if (all && all[type]) out[type] = all[type];
      else missing.push(type);
    }
    if (missing.length) {
      throw new Error(`bindings.json: ${kind} not in the ${name} provider schema: ${missing.join(', ')}`);
    }
    return out;
  };
  return {
    fqpn,
    schema: {
      format_version: schema.format_version,
      provider_schemas: {
        [fqpn]: {
          provider: provider.provider,
          resource_schemas: pick('resources', provider.resource_schemas, selection.resources ?? []),
          data_source_schemas: pick('dataSources', provider.data_source_schemas, selection.dataSources ?? []),
        },
      },
      provider_versions: schema.provider_versions,
    },
  };
}

/**
 * Loads @cdktf/provider-generator and @cdktf/commons from the repo's node_modules (the versions
 * pinned in package-lock.json). @cdktf/commons runs `terraform version` when it is loaded (for
 * cdktf-cli's telemetry) and reports failures to HashiCorp's checkpoint service; the generator
 * needs neither, so that module is pre-seeded with a stub and checkpoint calls are disabled.
 */
function loadGenerator() {
  process.env.CHECKPOINT_DISABLE = '1';
  const commonsEntry = require.resolve('@cdktf/commons', { paths: [REPO] });
  const terraformModule = path.join(path.dirname(commonsEntry), 'terraform.js');
  if (fs.existsSync(terraformModule) && !require.cache[terraformModule]) {
    const Module = require('module');
    const stub = new Module(terraformModule);
    stub.filename = terraformModule;
    stub.loaded = true;
    stub.exports = { terraformBinaryName: 'terraform', terraformVersion: Promise.resolve(undefined) };
    require.cache[terraformModule] = stub;
  }
  const generator = require(require.resolve('@cdktf/provider-generator', { paths: [REPO] }));
  const commons = require(commonsEntry);
  return { generator, commons };
}

function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Moves <from>/* into <to>, dropping the generator's README.md and lazy-index.ts files. */
function moveTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) moveTree(src, dst);
    else if (entry.name !== 'README.md' && entry.name !== 'lazy-index.ts') fs.renameSync(src, dst);
  }
}

const HEADER = '// Generated by scripts/toolchain/generate-bindings.js from schemas/providers. Do not edit.\n';

/**
 * `~> <major>.<minor>.<patch>` of a release: that release and its later patches, never a
 * pre-release, never an untested minor. The public registries resolve it; so does the mirror.
 */
function registryConstraint(version) {
  if (!/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`provider version "${version}" is not a release (major.minor.patch): label mirror builds with the release whose schema they carry`);
  }
  return `~> ${version}`;
}

/** cdktf writes `providerVersion` into required_providers: make it the constraint. */
function requireConstraint(dir, version) {
  const file = path.join(dir, 'provider', 'index.ts');
  const text = fs.readFileSync(file, 'utf8');
  const pinned = `providerVersion: '${version}',`;
  if (!text.includes(pinned)) throw new Error(`${file}: expected "${pinned}" in the generated provider`);
  fs.writeFileSync(file, text.replace(pinned, `providerVersion: '${registryConstraint(version)}',`));
}

/** Generates every provider of bindings.json into outDir (replacing its content). */
async function generate(outDir = DEFAULT_OUT, { schemaDir = SCHEMA_DIR, quiet = false } = {}) {
  const { generator, commons } = loadGenerator();
  const config = readJson(BINDINGS_CONFIG);
  const versions = readJson(path.join(schemaDir, 'versions.json'));
  const byName = new Map(versions.providers.map((p) => [p.name, p]));

  const names = Object.keys(config.providers || {}).sort();
  if (names.length === 0) throw new Error('bindings.json: "providers" is empty');

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-gen-'));
  try {
    const staged = path.join(work, 'out');
    fs.mkdirSync(staged);
    const summary = [];
    for (const name of names) {
      const pinned = byName.get(name);
      if (!pinned) {
        throw new Error(`bindings.json lists "${name}" but schemas/providers/versions.json does not`);
      }
      const { schema } = filterSchema(name, loadProviderSchema(name, schemaDir), config.providers[name]);
      const code = new generator.CodeMaker();
      const gen = new generator.TerraformProviderGenerator(code, schema);
      // A release range the public registries resolve; the offline mirror's build is labelled with
      // the release whose schema it carries, so it satisfies the same range.
      const constraint = new commons.TerraformProviderConstraint(`${pinned.source}@${registryConstraint(pinned.version)}`);
      gen.generate(new commons.ConstructsMakerProviderTarget(constraint, commons.LANGUAGES[0]));
      const raw = path.join(work, `raw-${name}`);
      await code.save(raw);
      moveTree(path.join(raw, 'providers', name), path.join(staged, name));
      requireConstraint(path.join(staged, name), pinned.version);
      const provider = schema.provider_schemas[Object.keys(schema.provider_schemas)[0]];
      summary.push(
        `${name} ${pinned.version}: ${Object.keys(provider.resource_schemas).length} resources, ` +
          `${Object.keys(provider.data_source_schemas).length} data sources`,
      );
    }

    // Prefix every generated file with a do-not-edit header.
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) fs.writeFileSync(p, HEADER + fs.readFileSync(p, 'utf8'));
      }
    };
    walk(staged);

    const versionLines = names.map((n) => {
      const p = byName.get(n);
      return `  ${JSON.stringify(n)}: { source: ${JSON.stringify(p.source)}, version: ${JSON.stringify(p.version)}, constraint: ${JSON.stringify(registryConstraint(p.version))} },`;
    });
    fs.writeFileSync(
      path.join(staged, 'versions.ts'),
      HEADER +
        '\n/** Provider builds in the offline mirror (scripts/toolchain/providers.json) that lib/gen was generated from. */\n' +
        `export const PROVIDER_VERSIONS = {\n${versionLines.join('\n')}\n} as const;\n`,
    );
    fs.writeFileSync(
      path.join(staged, 'index.ts'),
      HEADER + '\n' + names.map((n) => `export * as ${n} from './${n}';`).join('\n') + "\nexport * from './versions';\n",
    );

    removeDir(outDir);
    fs.mkdirSync(path.dirname(outDir), { recursive: true });
    fs.renameSync(staged, outDir);
    if (!quiet) {
      for (const line of summary) process.stdout.write(`[bindings] ${line}\n`);
      process.stdout.write(`[bindings] wrote ${path.relative(process.cwd(), outDir) || outDir}\n`);
    }
  } finally {
    removeDir(work);
  }
}

/** Lists files under dir relative to it, sorted. */
function listFiles(dir, base = dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(p, base, out);
    else out.push(path.relative(base, p));
  }
  return out.sort();
}

/** Differences between two generated trees: [] when identical. */
function diffTrees(expectedDir, actualDir) {
  const expected = listFiles(expectedDir);
  const actual = new Set(listFiles(actualDir));
  const problems = [];
  for (const f of expected) {
    if (!actual.has(f)) problems.push(`missing: ${f}`);
    else if (!fs.readFileSync(path.join(expectedDir, f)).equals(fs.readFileSync(path.join(actualDir, f)))) {
      problems.push(`differs: ${f}`);
    }
    actual.delete(f);
  }
  for (const f of actual) problems.push(`not generated (stale): ${f}`);
  return problems;
}

module.exports = { generate, diffTrees, loadProviderSchema, filterSchema, DEFAULT_OUT };

if (require.main === module) {
  const args = process.argv.slice(2);
  let out = DEFAULT_OUT;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out' && args[i + 1]) out = path.resolve(args[++i]);
    else {
      process.stderr.write(`usage: generate-bindings.js [--out DIR]\n`);
      process.exit(2);
    }
  }
  const start = Date.now();
  generate(out).then(
    () => process.stdout.write(`[bindings] done in ${((Date.now() - start) / 1000).toFixed(1)}s\n`),
    (err) => {
      process.stderr.write(`generate-bindings: ${err.message}\n`);
      process.exit(1);
    },
  );
}
