#!/usr/bin/env node
// Reads scripts/toolchain/providers.json (the pinned provider list) for the shell scripts.
//   node providers.js hash    -> short hash of everything that changes the mirror's content
//   node providers.js list    -> one provider per line, tab separated:
//                                name source version module moduleVersion package
//   node providers.js tofu    -> module moduleVersion package (tab separated)
//   node providers.js min-terraform -> minimum Terraform CLI version
//   node providers.js main-tf -> a main.tf requiring every provider at its pinned version
//   node providers.js versions-json -> content of schemas/providers/versions.json
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

// Bump when the way binaries are built changes (flags, layout): it moves the mirror to a new directory.
const BUILD_RECIPE = 'go build -trimpath -ldflags=-s -w; checksum database for every module; unpacked mirror layout v1';

function load() {
  const file = path.join(__dirname, 'providers.json');
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(cfg.providers) || cfg.providers.length === 0) {
    throw new Error(`${file}: "providers" must be a non-empty array`);
  }
  const seen = new Set();
  for (const [i, p] of cfg.providers.entries()) {
    for (const key of ['name', 'source', 'version', 'module', 'moduleVersion']) {
      if (typeof p[key] !== 'string' || p[key] === '') {
        throw new Error(`${file}: providers[${i}].${key} must be a non-empty string`);
      }
    }
    if (!/^[a-z0-9-]+\/[a-z0-9-]+$/.test(p.source) || p.source.split('/')[1] !== p.name) {
      throw new Error(`${file}: providers[${i}].source "${p.source}" must be "<namespace>/${p.name}"`);
    }
    if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(p.version)) {
      throw new Error(`${file}: providers[${i}].version "${p.version}" is not a semantic version`);
    }
    if (seen.has(p.name)) throw new Error(`${file}: provider "${p.name}" listed twice`);
    seen.add(p.name);
  }
  return cfg;
}

function main(argv) {
  const cfg = load();
  const cmd = argv[0];
  switch (cmd) {
    case 'hash': {
      const material = JSON.stringify({
        recipe: BUILD_RECIPE,
        providers: cfg.providers.map((p) => [p.name, p.source, p.version, p.module, p.moduleVersion, p.package || '']),
      });
      process.stdout.write(crypto.createHash('sha256').update(material).digest('hex').slice(0, 12) + '\n');
      return;
    }
    case 'list':
      for (const p of cfg.providers) {
        process.stdout.write(
          [p.name, p.source, p.version, p.module, p.moduleVersion, p.package || p.module].join('\t') + '\n',
        );
      }
      return;
    case 'tofu': {
      const t = cfg.terraform.opentofu;
      process.stdout.write([t.module, t.moduleVersion, t.package].join('\t') + '\n');
      return;
    }
    case 'main-tf': {
      // A root module that requires every pinned provider at its exact version.
      const lines = ['terraform {', '  required_providers {'];
      for (const p of cfg.providers) {
        lines.push(`    ${p.name} = {`, `      source  = "${p.source}"`, `      version = "${p.version}"`, '    }');
      }
      lines.push('  }', '}', '');
      process.stdout.write(lines.join('\n'));
      return;
    }
    case 'versions-json': {
      // schemas/providers/versions.json: what the committed schemas were dumped from.
      const out = {
        $comment: 'Written by scripts/toolchain/schemas.sh from scripts/toolchain/providers.json. Do not edit.',
        providers: cfg.providers.map((p) => ({
          name: p.name,
          source: p.source,
          version: p.version,
          module: p.module,
          moduleVersion: p.moduleVersion,
        })),
      };
      process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      return;
    }
    case 'min-terraform':
      process.stdout.write(cfg.terraform.minVersion + '\n');
      return;
    default:
      throw new Error(`usage: providers.js hash|list|tofu|min-terraform|main-tf|versions-json (got "${cmd ?? ''}")`);
  }
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`providers.js: ${err.message}\n`);
  process.exit(1);
}
