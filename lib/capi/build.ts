/** All CAPI objects of one workload cluster, in apply order (dependencies first, Cluster last). */
import { buildCluster } from './cluster';
import { buildControlPlaneMachineTemplate, buildKubeadmControlPlane } from './control-plane';
import { KubeObject } from '../objects/kube-object';
import { jsonCopy } from '../objects/json-copy';
import { WorkloadClusterInputs } from './inputs';
import { buildMachineHealthChecks } from './machine-health-check';
import { buildNodeGroup } from './node-group';
import { buildOpenStackCluster } from './openstack-cluster';

export interface ClusterObjects {
  readonly cluster: KubeObject;
  readonly openStackCluster: KubeObject;
  readonly controlPlaneMachineTemplate: KubeObject;
  readonly controlPlane: KubeObject;
  /** By node group name. */
  readonly nodeGroups: Readonly<Record<string, { machineTemplate: KubeObject; bootstrapTemplate: KubeObject; machineDeployment: KubeObject }>>;
  readonly machineHealthChecks: readonly KubeObject[];
}

/** The objects by role, for stacks that need to address them individually. */
export function buildClusterObjectSet(inputs: WorkloadClusterInputs): ClusterObjects {
  const groups = inputs.cluster.spec.nodeGroups;
  const names = new Set<string>();
  for (const g of groups) {
    if (names.has(g.name)) throw new Error(`expected unique node group names in cluster "${inputs.cluster.name}", found "${g.name}" twice`);
    names.add(g.name);
  }
  const openStackCluster = buildOpenStackCluster(inputs);
  const controlPlaneMachineTemplate = buildControlPlaneMachineTemplate(inputs);
  const controlPlane = buildKubeadmControlPlane(inputs, controlPlaneMachineTemplate);
  return {
    cluster: buildCluster(inputs, openStackCluster, controlPlane),
    openStackCluster,
    controlPlaneMachineTemplate,
    controlPlane,
    nodeGroups: Object.fromEntries(groups.map((g) => [g.name, buildNodeGroup(inputs, g)])),
    machineHealthChecks: buildMachineHealthChecks(inputs),
  };
}

/**
 * Every CAPI object of the cluster as plain data: OpenStackCluster, templates, KubeadmControlPlane,
 * MachineDeployments, MachineHealthChecks, and the Cluster last (CAPI starts provisioning once the
 * Cluster exists and everything it references is there).
 */
export function buildClusterObjects(inputs: WorkloadClusterInputs): KubeObject[] {
  const set = buildClusterObjectSet(inputs);
  // plain JSON copies: no nested value is shared within or between objects (YAML would show anchors)
  return jsonCopy([
    set.openStackCluster,
    set.controlPlaneMachineTemplate,
    set.controlPlane,
    ...Object.values(set.nodeGroups).flatMap((g) => [g.machineTemplate, g.bootstrapTemplate, g.machineDeployment]),
    ...set.machineHealthChecks,
    set.cluster,
  ]);
}

