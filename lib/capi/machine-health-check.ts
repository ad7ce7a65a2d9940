/** MachineHealthChecks (CAPI v1beta2) of the control plane and of the worker machines. */
import { API, CLUSTER_NAME_LABEL, KubeObject, commonLabels } from '../objects/kube-object';
import { WorkloadClusterInputs, clusterNamespace } from './inputs';
import { DEPLOYMENT_NAME_LABEL } from './node-group';

/** Set by CAPI on control-plane Machines. */
export const CONTROL_PLANE_MACHINE_LABEL = 'cluster.x-k8s.io/control-plane';

/**
 * How many unhealthy machines of `machines` a check may still remediate: `maxUnhealthyPercent` of
 * them, rounded down as Cluster API rounds a percentage (intstr, roundUp false), but at least one
 * unless the percentage is 0. Cluster API given the percentage itself would remediate nothing in a
 * group of one or two (40 % of 2 is 0, and one unhealthy machine is already more); the floor of
 * one keeps a small cluster's dead machine replaced while a larger share going unhealthy at once
 * (a network partition, a cloud outage) still stops remediation.
 */
export function unhealthyMachinesRemediated(maxUnhealthyPercent: number, machines: number): number {
  if (maxUnhealthyPercent === 0) return 0;
  return Math.max(1, Math.floor((maxUnhealthyPercent * machines) / 100));
}

/**
 * `spec.checks` + `spec.remediation` from the cluster's machineHealthCheck settings, for a check
 * covering `machines` machines (the replicas the environment gives them).
 */
export function healthCheckSpec(inputs: WorkloadClusterInputs, machines: number): Record<string, unknown> {
  const mhc = inputs.cluster.spec.machineHealthCheck;
  const unhealthyAfter = mhc.unhealthyAfterMinutes * 60;
  return {
    checks: {
      nodeStartupTimeoutSeconds: mhc.nodeStartupTimeoutMinutes * 60,
      unhealthyNodeConditions: [
        { type: 'Ready', status: 'Unknown', timeoutSeconds: unhealthyAfter },
        { type: 'Ready', status: 'False', timeoutSeconds: unhealthyAfter },
      ],
    },
    // old maxUnhealthy: remediate only while at most this many of the machines are unhealthy. A
    // count, not the percentage: Cluster API has no "at least one" for a percentage. The product
    // owns the replicas (no autoscaler), so the count is redone whenever they change.
    remediation: { triggerIf: { unhealthyLessThanOrEqualTo: unhealthyMachinesRemediated(mhc.maxUnhealthyPercent, machines) } },
  };
}

/** Both checks, or none when disabled. */
export function buildMachineHealthChecks(inputs: WorkloadClusterInputs): KubeObject[] {
  const { cluster } = inputs;
  if (!cluster.spec.machineHealthCheck.enabled) return [];
  const namespace = clusterNamespace(inputs);
  const labels = commonLabels(cluster.name);
  const controlPlane: KubeObject = {
    apiVersion: API.cluster.version,
    kind: 'MachineHealthCheck',
    metadata: { name: `${cluster.name}-control-plane`, namespace, labels },
    spec: {
      clusterName: cluster.name,
      selector: { matchLabels: { [CLUSTER_NAME_LABEL]: cluster.name, [CONTROL_PLANE_MACHINE_LABEL]: '' } },
      ...healthCheckSpec(inputs, cluster.spec.controlPlane.count),
    },
  };
  const objects = [controlPlane];
  if (cluster.spec.nodeGroups.length > 0) {
    objects.push({
      apiVersion: API.cluster.version,
      kind: 'MachineHealthCheck',
      metadata: { name: `${cluster.name}-workers`, namespace, labels },
      spec: {
        clusterName: cluster.name,
        selector: {
          matchLabels: { [CLUSTER_NAME_LABEL]: cluster.name },
          matchExpressions: [{ key: DEPLOYMENT_NAME_LABEL, operator: 'Exists' }],
        },
        ...healthCheckSpec(inputs, cluster.spec.nodeGroups.reduce((sum, g) => sum + g.count, 0)),
      },
    });
  }
  return objects;
}
