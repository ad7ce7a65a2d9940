/**
 * Lets `node -r test/runtime/cli/support/ts-register.js bin/capi-openstack.ts …` run the TypeScript
 * sources in a real process (exit codes, stdout/stderr), without a build: each .ts file is
 * transpiled on load with the project's TypeScript (no type check; `npm run build` does that).
 * Transpiled output is cached by content hash in the temp directory.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const cacheDir = path.join(os.tmpdir(), 'capi-openstack-cli-ts-cache');
let ts;

require.extensions['.ts'] = function compile(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const hash = crypto.createHash('sha256').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${hash}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts = ts || require('typescript');
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true },
    }).outputText;
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = `${cached}.${process.pid}`;
      fs.writeFileSync(tmp, output);
      fs.renameSync(tmp, cached);
    } catch {
      // cache is an optimisation only
    }
  }
  module._compile(output, filename);
};
