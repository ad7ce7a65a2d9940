/**
 * The app runs no process while it synthesizes: cdktf's `terraform version` probe (one per
 * terraform_data) is removed, so each cdktf command pays for Terraform only where Terraform works.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { DataResource } from 'cdktf/lib/terraform-data-resource';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { removeTerraformVersionProbes } from '../../lib/terraform/terraform-version-probes';
import { ROOT } from './synthesize';

// the module object itself (cdktf calls `child_process.execSync` through it), not a TypeScript namespace copy
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess: typeof import('child_process') = require('child_process');

describe('terraform version probes', () => {
  test('synthesizing the example environment spawns no process (no `terraform version`)', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'probes-'));
    const execSync = jest.spyOn(childProcess, 'execSync');
    try {
      const app = new EnvironmentsApp({ environmentsDir: path.join(ROOT, 'environments'), only: ['example'], appConfig: { outdir }, onWarning: () => undefined });
      app.synth();
      expect(execSync.mock.calls.map((c) => String(c[0]))).toEqual([]);
      expect(fs.readdirSync(path.join(outdir, 'stacks')).sort()).toEqual(['example-demo', 'example-management']);
    } finally {
      execSync.mockRestore();
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('removes only the binary-version probes, and keeps the other validations', () => {
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'probes-')) });
    const stack = new TerraformStack(app, 'S');
    const data = new DataResource(stack, 'D', { input: { note: 'x' } });
    const own = { validate: () => ['kept'] };
    data.node.addValidation(own);
    expect(removeTerraformVersionProbes(app)).toBe(1);
    expect(data.node.validate()).toEqual(['kept']);
    expect(removeTerraformVersionProbes(app)).toBe(0);
  });
});
