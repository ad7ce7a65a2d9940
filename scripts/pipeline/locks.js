#!/usr/bin/env node
/**
 * Dependency lock files for stacks planned side by side (scripts/pipeline/plan).
 *
 * `terraform init` without a lock file installs each provider into the shared plugin cache again,
 * replacing the directory that the other stacks' `.terraform` links point to: a plan running beside
 * it then fails with "fork/exec …: no such file or directory". With a lock file that records the
 * provider's checksum, init only links from the cache. So the plan stage initializes one stack
 * alone, and this helper gives the others the lock entries that are already known.
 *
 *   locks.js seed <stacks-dir> <stack>...
 *       writes .terraform.lock.hcl into each listed stack that has none, from the provider blocks
 *       of the lock files already in <stacks-dir>; prints the stacks that need a provider no lock
 *       file records yet (initialize one of them alone, then seed again)
 */
'use strict';
const fs = require('fs');
const path = require('path');

const HEADER = '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n';

/** provider address -> its block, from every lock file of the stacks directory. */
function knownBlocks(stacksDir) {
  const blocks = new Map();
  for (const stack of fs.readdirSync(stacksDir)) {
    const file = path.join(stacksDir, stack, '.terraform.lock.hcl');
    if (!fs.existsSync(file)) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/^provider "([^"]+)" \{\n[\s\S]*?^\}$/gm)) blocks.set(m[1], m[0]);
  }
  return blocks;
}

/** Registry addresses of the providers a synthesized stack requires. */
function requiredProviders(stackDir) {
  const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
  return Object.entries(json.terraform?.required_providers ?? {}).map(([name, req]) => {
    const source = (typeof req === 'object' && req.source) || `hashicorp/${name}`;
    return (source.split('/').length === 2 ? `registry.terraform.io/${source}` : source).toLowerCase();
  });
}

function seed(stacksDir, stacks) {
  const blocks = knownBlocks(stacksDir);
  const unseeded = [];
  for (const stack of stacks) {
    const dir = path.join(stacksDir, stack);
    if (fs.existsSync(path.join(dir, '.terraform.lock.hcl'))) continue;
    const required = requiredProviders(dir);
    if (!required.every((p) => blocks.has(p))) {
      unseeded.push(stack);
      continue;
    }
    const body = required.sort().map((p) => blocks.get(p)).join('\n\n');
    fs.writeFileSync(path.join(dir, '.terraform.lock.hcl'), `${HEADER}\n${body}\n`);
  }
  return unseeded;
}

const [cmd, stacksDir, ...stacks] = process.argv.slice(2);
if (cmd !== 'seed' || !stacksDir) {
  process.stderr.write(`pipeline: usage: locks.js seed <stacks-dir> <stack>...\n`);
  process.exit(1);
}
const unseeded = seed(stacksDir, stacks);
if (unseeded.length > 0) process.stdout.write(`${unseeded.join('\n')}\n`);
