import * as fs from 'fs';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';

export const ROOT = path.resolve(__dirname, '..', '..');
/** The shipped environment files and the fixtures that switch every option on. */
export const ENVIRONMENT_DIRS = [path.join(ROOT, 'environments'), path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'environments')];

/** Machine-specific paths (the checkout, the working directory) would make the snapshot local. */
function portable(text: string): string {
  return text.split(ROOT).join('<repo>').split(process.cwd()).join('<cwd>');
}

/** The stacks of every environment file in `dir`, as portable cdk.tf.json text by stack name. */
export function synthesize(dir: string): Record<string, string> {
  // inside the checkout, so the relative script paths in the JSON do not depend on where it is
  fs.mkdirSync(path.join(ROOT, 'cdktf.out'), { recursive: true });
  const outdir = fs.mkdtempSync(path.join(ROOT, 'cdktf.out', 'snapshot-'));
  const previous = process.cwd();
  process.chdir(dir); // relative paths in the fixtures (kubeconfig) resolve from their folder
  try {
    new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir } }).synth();
  } finally {
    process.chdir(previous);
  }
  const stacks: Record<string, string> = {};
  for (const name of fs.readdirSync(path.join(outdir, 'stacks'))) {
    stacks[name] = portable(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8'));
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  return stacks;
}

/** The framework the tests run on: cdktf, or its fork cdktn installed under the name cdktf. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const FRAMEWORK: { readonly name: string; readonly version: string } = require('cdktf/package.json');

/** A stack's JSON with what differs between the frameworks (their version in the metadata) set aside. */
export function frameworkNeutral(text: string): unknown {
  const json = JSON.parse(text);
  if (json['//']?.metadata) json['//'].metadata.version = '(framework version)';
  return json;
}
