#!/usr/bin/env node
// Fails (exit 1) when lib/gen is not what scripts/toolchain/generate-bindings.js produces from the
// committed schemas and scripts/toolchain/bindings.json. Needs neither Go nor Terraform.
//   node scripts/toolchain/check-bindings.js
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { generate, diffTrees, DEFAULT_OUT } = require('./generate-bindings');

async function checkBindings(committedDir = DEFAULT_OUT) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-gen-check-'));
  try {
    const fresh = path.join(tmp, 'gen');
    await generate(fresh, { quiet: true });
    return diffTrees(fresh, committedDir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = { checkBindings };

if (require.main === module) {
  checkBindings().then(
    (problems) => {
      if (problems.length === 0) {
        process.stdout.write('[check-bindings] lib/gen is up to date\n');
        return;
      }
      process.stderr.write(
        `[check-bindings] lib/gen is stale (${problems.length} file(s)); run: node scripts/toolchain/generate-bindings.js\n` +
          problems.slice(0, 30).map((p) => `  ${p}\n`).join(''),
      );
      process.exit(1);
    },
    (err) => {
      process.stderr.write(`check-bindings: ${err.message}\n`);
      process.exit(1);
    },
  );
}
