/**
 * The cdktf app: one `<env>-management` stack (and, per cluster, `<env>-<cluster>`) for every
 * environments/*.yaml, or only those named in ENVIRONMENT (comma-separated).
 * Invalid environment files stop here, before anything is written to cdktf.out.
 */
import * as path from 'path';
import { App } from 'cdktf';
import { buildEnvironmentStacks, loadEnvironments } from './lib';

function main(): void {
  const only = (process.env.ENVIRONMENT ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const dir = process.env.ENVIRONMENTS_DIR ?? path.join(process.cwd(), 'environments');
  let environments;
  try {
    environments = loadEnvironments(dir, only);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(1);
  }
  const app = new App();
  for (const env of environments) buildEnvironmentStacks(app, env);
  app.synth();
}

main();
