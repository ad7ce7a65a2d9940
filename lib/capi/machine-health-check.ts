/** MachineHealthChecks (CAPI v1beta2) of the control plane and of the worker machines. */
import { API, CLUSTER_NAME_LABEL, KubeObject, commonLabels } from '../objects/kube-object';
import { WorkloadClusterInputs, clusterNamespace } from './inputs';
import { DEPLOYMENT_NAME_LABEL } from './node-group';

/** Set by CAPI on control-plane Machines. */
export const CONTROL_PLANE_MACHINE_LABEL = 'cluster.x-k8s.io/control-plane';

/** `spec.checks` + `spec.remediation` from the cluster's machineHealthCheck settings. */
export function healthCheckSpec(inputs: WorkloadClusterInputs): Record<string, unknown> {
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
    // old maxUnhealthy: remediate only while at most this share of the machines is unhealthy
    remediation: { triggerIf: { unhealthyLessThanOrEqualTo: `${mhc.maxUnhealthyPercent}%` } },
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
      ...healthCheckSpec(inputs),
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
        ...healthCheckSpec(inputs),
      },
    });
  }
  return objects;
}
