/**
 * The ordered Kubernetes upgrade of a workload stack: the KubeadmControlPlane read at plan with a
 * precondition (no jump of minors, no downgrade), a gate keyed by the minor that the
 * MachineDeployments wait for, and nothing that delays the control plane itself.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { environment, environmentYaml, resourcesOf, synthEnvironment } from './support';

const CLUSTER = (version: string) => `clusters:
  alpha:
    kubernetesVersion: ${version}
    controlPlane: { count: 3, flavor: SCS-2V-4-20s }
    nodeGroups:
      - { name: md-0, count: 2, flavor: SCS-2V-4-20s }
      - { name: md-1, count: 1, flavor: SCS-4V-8 }
`;

function manifestsByKind(stack: any): Record<string, [string, any][]> {
  const out: Record<string, [string, any][]> = {};
  for (const [key, m] of Object.entries<any>(stack.resource.kubernetes_manifest)) (out[m.manifest.kind] ??= []).push([key, m]);
  return out;
}

describe('ordered Kubernetes upgrades of a workload stack', () => {
  const stack = synthEnvironment(environment(environmentYaml(CLUSTER('v1.36.x')))).json['unit-alpha'];
  const [gateKey, gate] = Object.entries<any>(stack.resource.terraform_data).find(([k]) => k.includes('ControlPlaneUpgrade'))!;
  const [readKey, read] = Object.entries<any>(stack.data.kubernetes_resources)[0];

  test('the deployed KubeadmControlPlane is read at plan (it depends on nothing of the stack)', () => {
    // a list: the single-object data source fails the plan while the object does not exist yet
    expect(read).toMatchObject({ api_version: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', namespace: 'capi-unit-alpha', field_selector: 'metadata.name=alpha-control-plane' });
    expect(read.depends_on).toBeUndefined();
  });

  test('a precondition over it refuses a jump of minors or a downgrade, naming the path', () => {
    const [guard] = gate.lifecycle.precondition;
    const object = `try(data.kubernetes_resources.${readKey}.objects[0], null)`;
    expect(guard.condition).toBe(
      `\${try(${object}.spec.version, "") == "" || try(tonumber(split(".", try(${object}.spec.version, ""))[1]), -1) == 35 || ` +
        `(try(tonumber(split(".", try(${object}.spec.version, ""))[1]), -1) == 36 && try(tonumber(split(".", try(${object}.spec.version, ""))[2]), -1) <= 5)}`,
    );
    expect(guard.error_message).toContain('a downgrade, which kubeadm does not support');
    expect(guard.error_message).toContain('skips minors; upgrade one minor at a time: ');
  });

  test('the gate is keyed by the minor and waits, after the control plane, for it to run the version on all machines', () => {
    expect(gate.triggers_replace).toEqual({ controlPlaneMinor: 'v1.36' });
    const [kcpKey] = manifestsByKind(stack).KubeadmControlPlane[0];
    expect(gate.depends_on).toEqual([`kubernetes_manifest.${kcpKey}`, `data.kubernetes_resources.${readKey}`]);
    const exec = gate.provisioner[0]['local-exec'];
    expect(exec.command).toMatch(/^node ".*wait-for-control-plane\.js"$/);
    expect(exec.environment).toMatchObject({ CONTROL_PLANE_NAMESPACE: 'capi-unit-alpha', CONTROL_PLANE_NAME: 'alpha-control-plane', CONTROL_PLANE_VERSION: 'v1.36.5', READY_TIMEOUT_MINUTES: '60' });
    expect(exec.environment.KUBE_SERVER).toMatch(/cross-stack-reference-input-unit-management/);
  });

  test('every MachineDeployment waits for the gate; the control plane and the other objects do not', () => {
    const kinds = manifestsByKind(stack);
    for (const [, md] of kinds.MachineDeployment) expect(md.depends_on).toContain(`terraform_data.${gateKey}`);
    expect(kinds.MachineDeployment).toHaveLength(2);
    for (const kind of ['KubeadmControlPlane', 'OpenStackCluster', 'MachineHealthCheck']) {
      for (const [, m] of kinds[kind]) expect(m.depends_on ?? []).not.toContain(`terraform_data.${gateKey}`);
    }
  });

  test('a patch change keeps the gate as it is; a minor change replaces it (the plan names the phase)', () => {
    const patch = synthEnvironment(environment(environmentYaml(CLUSTER('v1.36.1')))).json['unit-alpha'];
    const minor = synthEnvironment(environment(environmentYaml(CLUSTER('v1.35.x')))).json['unit-alpha'];
    const gateOf = (s: any) => Object.entries<any>(s.resource.terraform_data).find(([k]) => k.includes('ControlPlaneUpgrade'))![1];
    expect(gateOf(patch).triggers_replace).toEqual(gate.triggers_replace);
    expect(gateOf(minor).triggers_replace).toEqual({ controlPlaneMinor: 'v1.35' });
    expect(gateOf(minor).provisioner[0]['local-exec'].environment.CONTROL_PLANE_VERSION).toBe('v1.35.10');
    expect([stack.output.kubernetes_version.value, minor.output.kubernetes_version.value]).toEqual(['v1.36.5', 'v1.35.10']);
  });

  test('with an existing management cluster the gate reads its kubeconfig and context', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'byo-gate-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const byo = synthEnvironment(environment(environmentYaml(`existingManagementCluster:\n  kubeconfigFile: ${kubeconfig}\n  context: admin@mgmt\n${CLUSTER('v1.36.x')}`))).json['unit-alpha'];
    const exec = resourcesOf(byo, 'terraform_data').find((d) => d.provisioner?.[0]['local-exec'].command.includes('wait-for-control-plane'))!.provisioner[0]['local-exec'];
    expect(exec.environment).toMatchObject({ KUBE_CONFIG_FILE: kubeconfig, KUBE_CONTEXT: 'admin@mgmt' });
    expect(exec.environment.KUBE_SERVER).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
