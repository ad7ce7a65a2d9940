/**
 * The management VM's first-boot record against a real `terraform apply` and `plan`: a record made
 * by an earlier version (or with a setting left out, like `versions` under the readiness gate) has
 * no entry for a setting the stack compares now. Such a plan must still succeed: a plain reference
 * to the missing entry fails with "Unsupported attribute", which would lock the operator out of
 * every plan of the management stack after an upgrade of this library. A setting the record lacks
 * is compared with its `unrecordedDigest` (the value a VM recorded earlier booted with).
 *
 * Needs only terraform (the record is a `terraform_data`, the comparison a `check` block); no cloud.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { FirstBootRecord } from '../../lib/clusters/first-boot-record';
import { FirstBootSetting, settingDigest } from '../../lib/config/first-boot-settings';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'first-boot-record-'));
const STACK = 'record';
const stackDir = path.join(work, 'stacks', STACK);

/** Synthesizes a stack holding only the record, with these settings, into the same directory (state stays). */
function synth(settings: readonly FirstBootSetting[]): void {
  const app = new App({ outdir: work });
  const stack = new TerraformStack(app, STACK);
  new FirstBootRecord(stack, 'FirstBoot', { settings, instanceId: 'vm-1', imageName: 'Ubuntu 22.04', currentImageId: 'image-1', environment: 'unit' });
  app.synth();
}

function terraform(...args: string[]) {
  const r = spawnSync('terraform', [...args, '-input=false', '-no-color'], { cwd: stackDir, encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const unset = settingDigest(null);
const mirror = settingDigest({ baseUrl: 'https://mirror.example/tools' });

describe('the first-boot record of a VM booted by an earlier version', () => {
  beforeAll(() => {
    synth([{ field: 'management.image', digest: settingDigest('Ubuntu 22.04') }]);
    const init = terraform('init');
    if (init.status !== 0) throw new Error(`terraform init failed:\n${init.out.slice(-2000)}`);
    const apply = terraform('apply', '-auto-approve');
    if (apply.status !== 0) throw new Error(`terraform apply failed:\n${apply.out.slice(-2000)}`);
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test('a setting the record lacks, still at the value earlier VMs booted with: the plan succeeds without a warning', () => {
    synth([
      { field: 'management.image', digest: settingDigest('Ubuntu 22.04') },
      { field: 'management.tools', digest: unset, unrecordedDigest: unset },
      { field: 'versions', digest: settingDigest({ capo: 'v0.14.7' }) },
    ]);
    const plan = terraform('plan');
    expect(plan.out).not.toContain('Unsupported attribute');
    expect(plan.status).toBe(0);
    expect(plan.out).not.toContain('changed, but');
    expect(plan.out).toContain('No changes');
  });

  test('a setting the record lacks, set now: the plan succeeds and warns that it applies to a new VM only', () => {
    synth([
      { field: 'management.image', digest: settingDigest('Ubuntu 22.04') },
      { field: 'management.tools', digest: mirror, unrecordedDigest: unset },
    ]);
    const plan = terraform('plan');
    expect(plan.status).toBe(0);
    expect(plan.out).toMatch(/management\.tools changed, but it applies to a new management VM only/);
  });

  test('a recorded setting that changed still warns (the comparison reads the record, not the fallback)', () => {
    synth([
      { field: 'management.image', digest: settingDigest('Debian 12'), unrecordedDigest: settingDigest('Debian 12') },
    ]);
    const plan = terraform('plan');
    expect(plan.status).toBe(0);
    expect(plan.out).toMatch(/management\.image changed, but it applies to a new management VM only/);
  });
});
