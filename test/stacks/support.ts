import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdktf';
import { EnvironmentConfig } from '../../lib/config/resolve';
import { buildEnvironmentStacks, EnvironmentStacks } from '../../lib/stacks/environment-stacks';

export { environment, environmentYaml } from '../support/environment-text';

export interface SynthesizedEnvironment {
  readonly stacks: EnvironmentStacks;
  /** Terraform JSON by stack name. */
  readonly json: Record<string, any>;
}

/** A full app synth (cross-stack references are only resolved there), read back from disk. */
export function synthEnvironment(env: EnvironmentConfig): SynthesizedEnvironment {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-'));
  const app = new App({ outdir });
  const stacks = buildEnvironmentStacks(app, env);
  app.synth();
  const json: Record<string, any> = {};
  for (const name of fs.readdirSync(path.join(outdir, 'stacks'))) {
    json[name] = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8'));
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  return { stacks, json };
}

/** Resources of one type as a list of their bodies. */
export function resourcesOf(stackJson: any, type: string): any[] {
  return Object.values(stackJson.resource?.[type] ?? {});
}
