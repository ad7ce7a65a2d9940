import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';

/**
 * Path of a script compiled into this package's `dist/bin/` (e.g. `wait-for-management.js`),
 * relative to the directory Terraform runs the stack of `scope` in (`<outdir>/stacks/<stack>`):
 * what a `local-exec` provisioner runs. Relative, so the synthesized JSON does not carry the
 * machine's absolute paths and the checkout can move between synth and apply.
 */
export function bundledScriptPath(scope: Construct, scriptFile: string): string {
  // This file is dist/lib/terraform/bundled-script.js; the scripts are dist/bin/*.js.
  return pathFromStackDir(scope, path.join(__dirname, '..', '..', 'bin', scriptFile));
}

/** `file` relative to the directory Terraform runs the stack of `scope` in (`<outdir>/stacks/<stack>`). */
export function pathFromStackDir(scope: Construct, file: string): string {
  const stackDir = path.join(App.of(scope).outdir, 'stacks', TerraformStack.of(scope).node.id);
  return path.relative(stackDir, file);
}

/** `node "<bundledScriptPath>"`, the local-exec command that runs a bundled script. */
export function bundledScriptCommand(scope: Construct, scriptFile: string): string {
  return `node ${JSON.stringify(bundledScriptPath(scope, scriptFile))}`;
}
