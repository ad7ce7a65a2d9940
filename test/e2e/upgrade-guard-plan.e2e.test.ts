/**
 * Tier 3 (local kube-apiserver): the ControlPlaneUpgradeGate as it synthesizes, planned by the real
 * terraform with the real kubernetes provider against KubeadmControlPlanes on the local
 * kube-apiserver. Nothing deployed, the same minor, one minor up: the plan passes. Two minors up and
 * a downgrade: the plan fails, naming the path. (The single-object data source failed the first
 * case: "Provider produced a null value".) Each case has its own namespace; no resource is applied.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { DataResource } from 'cdktf';
import { KubernetesProvider } from '../../lib/gen/kubernetes/provider';
import { ControlPlaneUpgradeGate } from '../../lib/kube/control-plane-upgrade-gate';
import { LOCAL_KUBECONFIG } from './support/lane-paths';
import { serviceGate } from './support/service-gate';
import { kubeClientFromKubeconfig, ok } from './support/workload-kube';

const KUBECONFIG = LOCAL_KUBECONFIG;
const TARGET = 'v1.37.2';
const RUN = `ug${process.pid.toString(36)}`;
/** Deployed version per case (null: no KubeadmControlPlane), and whether the plan passes. */
const PASSING: readonly (string | null)[] = [null, 'v1.37.0', 'v1.36.3'];
const REFUSED: readonly string[] = ['v1.35.10', 'v1.38.0'];

const { suite, requireRunning } = serviceGate('upgrade guard plan e2e', ['local-kube']);

function kcp(namespace: string, version: string): unknown {
  return {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'alpha-control-plane', namespace },
    spec: {
      replicas: 1,
      version,
      machineTemplate: { spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'OpenStackMachineTemplate', name: 'alpha-control-plane' } } },
      kubeadmConfigSpec: { format: 'cloud-config' },
    },
  };
}

suite('the upgrade gate planned against KubeadmControlPlanes on the local kube-apiserver', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'upgrade-guard-plan-'));
  const client = () => kubeClientFromKubeconfig(KUBECONFIG);
  const namespaces: string[] = [];

  beforeAll(async () => {
    requireRunning();
    const c = client();
    for (const [i, version] of [...PASSING, ...REFUSED].entries()) {
      const ns = `${RUN}-${i}`;
      namespaces.push(ns);
      if (version === null) continue; // nothing deployed: not even the namespace
      ok(await c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), `namespace ${ns}`);
      ok(await c.request('POST', `/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/${ns}/kubeadmcontrolplanes`, kcp(ns, version)), `KubeadmControlPlane in ${ns}`);
    }
    const app = new App({ outdir });
    const stack = (name: string, offset: number, count: number) => {
      const s = new TerraformStack(app, name);
      new KubernetesProvider(s, 'Management', { configPath: KUBECONFIG });
      const controlPlane = new DataResource(s, 'ControlPlane', { input: { standsInFor: 'the KubeadmControlPlane manifest' } });
      for (let i = offset; i < offset + count; i++) {
        new ControlPlaneUpgradeGate(s, `Gate${i}`, {
          namespace: namespaces[i],
          name: 'alpha-control-plane',
          kubernetesVersion: TARGET,
          management: { kind: 'kubeconfig', file: KUBECONFIG },
          controlPlane,
        });
      }
    };
    stack('passing', 0, PASSING.length);
    stack('refused', PASSING.length, REFUSED.length);
    app.synth();
  });

  afterAll(async () => {
    const c = client();
    for (const ns of namespaces) await c.request('DELETE', `/api/v1/namespaces/${ns}`);
    fs.rmSync(outdir, { recursive: true, force: true });
  });

  const plan = (stack: string) => {
    const cwd = path.join(outdir, 'stacks', stack);
    const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
    const init = spawnSync('terraform', ['init', '-input=false', '-no-color'], { cwd, env, encoding: 'utf8' });
    expect([init.status, init.stderr]).toEqual([0, '']);
    return spawnSync('terraform', ['plan', '-input=false', '-no-color'], { cwd, env, encoding: 'utf8' });
  };

  test('nothing deployed, one minor up or the same minor: the plan passes', () => {
    const r = plan('passing');
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`Plan: ${PASSING.length + 1} to add, 0 to change, 0 to destroy.`);
  });

  test('two minors up or a downgrade: the plan fails naming the path', () => {
    const r = plan('refused');
    expect(r.status).toBe(1);
    const err = r.stderr.replace(/\s+/g, ' ');
    expect(err.match(/Error: Resource precondition failed/g)).toHaveLength(2);
    expect(err).toContain('Kubernetes v1.35.10 → v1.37.2: skips minors; upgrade one minor at a time: v1.36.x, then v1.37.x');
    expect(err).toContain('Kubernetes v1.38.0 → v1.37.2: a downgrade, which kubeadm does not support; keep v1.38.0 (or a newer version) in kubernetesVersion');
  });
});
