/**
 * Tier 2: the plan-time Kubernetes upgrade guard of the workload stacks, evaluated by the real
 * terraform from JSON exactly as the gate synthesizes it, agrees with the rule set of
 * lib/config/kubernetes-upgrade on every case (nothing deployed, same, patch up, patch down, one
 * minor up, two minors up, a downgrade of a minor, unreadable versions). Needs only terraform.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { kubernetesUpgradeStep } from '../../lib/config/kubernetes-upgrade';
import { upgradeGuard } from '../../lib/kube/control-plane-upgrade-gate';

const TARGET = 'v1.37.2';
/** What the KubeadmControlPlane read at plan holds: its spec.version, or nothing. */
const DEPLOYED: readonly (string | null)[] = [null, 'v1.37.2', 'v1.37.0', 'v1.37.5', 'v1.36.3', 'v1.35.10', 'v1.34.1', 'v1.38.0'];

describe('plan-time Kubernetes upgrade guard', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upgrade-guard-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('terraform evaluates the guard like kubernetesUpgradeStep decides', () => {
    const variable: Record<string, unknown> = {};
    const output: Record<string, unknown> = {};
    DEPLOYED.forEach((v, i) => {
      // what the list data source returns: no object, or the one KubeadmControlPlane of that name
      variable[`o${i}`] = { type: 'any', default: v === null ? [] : [{ spec: { version: v } }] };
      const g = upgradeGuard(`try(var.o${i}[0], null)`, 37, 2, TARGET);
      output[`c${i}`] = { value: g.condition };
      output[`m${i}`] = { value: g.error_message };
    });
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify({ variable, output }));
    const run = (args: string[]) => spawnSync('terraform', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' } });
    for (const args of [['init', '-input=false', '-no-color'], ['apply', '-auto-approve', '-input=false', '-no-color']]) {
      const r = run(args);
      expect([args[0], r.status, r.stderr]).toEqual([args[0], 0, '']);
    }
    const out = JSON.parse(run(['output', '-json']).stdout) as Record<string, { value: unknown }>;
    const seen = DEPLOYED.map((v, i) => ({ deployed: v, passes: out[`c${i}`].value, message: out[`m${i}`].value }));
    const expected = DEPLOYED.map((v) => {
      const step = kubernetesUpgradeStep(v ?? undefined, TARGET);
      return { deployed: v, passes: step.kind !== 'refused', message: expect.any(String) };
    });
    expect(seen).toEqual(expected);
    expect(out.m5.value).toBe('Kubernetes v1.35.10 → v1.37.2: skips minors; upgrade one minor at a time: v1.36.x, then v1.37.x');
    expect(out.m6.value).toBe('Kubernetes v1.34.1 → v1.37.2: skips minors; upgrade one minor at a time: v1.35.x, then v1.36.x, then v1.37.x');
    expect(out.m3.value).toBe('Kubernetes v1.37.5 → v1.37.2: a downgrade, which kubeadm does not support; keep v1.37.5 (or a newer version) in kubernetesVersion');
    expect(out.m7.value).toBe('Kubernetes v1.38.0 → v1.37.2: a downgrade, which kubeadm does not support; keep v1.38.0 (or a newer version) in kubernetesVersion');
  });
});
