/** KubeadmControlPlane (CAPI v1beta2) and the control plane's OpenStackMachineTemplate. */
import { API, KubeObject, ROLE_LABEL, commonLabels, refTo } from '../objects/kube-object';
import { ETCD_EXTRA_ARGS, ETCD_MAINTENANCE_POST_COMMANDS, ETCD_UNSAFE_FS_PRE_COMMANDS, etcdMaintenanceFiles, etcdUnsafeFsFiles } from './etcd';
import { WorkloadClusterInputs, clusterNamespace } from './inputs';
import { kubeadmPatches, nodeCommands, nodeRegistration, sortedFiles, wantsServingCerts } from './kubeadm';
import { buildMachineTemplate } from './machine-template';
import { commonNodeFiles, commonPreKubeadmCommands } from './node-files';
import { NODE_METADATA_BLOCK_PRE_COMMANDS, nodeMetadataBlockFiles } from './metadata-block';
import { checkNodeUserDataSize } from './node-user-data-size';

export const CONTROL_PLANE_ROLE = 'control-plane';

export function controlPlaneName(clusterName: string): string {
  return `${clusterName}-${CONTROL_PLANE_ROLE}`;
}

export function buildControlPlaneMachineTemplate(inputs: WorkloadClusterInputs): KubeObject {
  const cp = inputs.cluster.spec.controlPlane;
  return buildMachineTemplate(inputs, {
    role: CONTROL_PLANE_ROLE,
    flavor: cp.flavor,
    metadata: cp.metadata,
    rootVolumeSizeGb: cp.rootVolumeSizeGb,
    serverGroupId: inputs.serverGroupIds.controlPlane,
  });
}

/** The KubeadmControlPlane; `machineTemplate` is the control plane's OpenStackMachineTemplate. */
export function buildKubeadmControlPlane(inputs: WorkloadClusterInputs, machineTemplate: KubeObject): KubeObject {
  const { env, cluster } = inputs;
  const spec = cluster.spec;
  const serving = wantsServingCerts(spec);
  const unsafeFs = spec.controlPlane.etcdUnsafeFilesystem;
  const files = sortedFiles([
    ...(spec.blockMetadataService ? nodeMetadataBlockFiles() : []),
    ...commonNodeFiles(env, cluster, inputs.apiServerFloatingIp, serving),
    ...etcdMaintenanceFiles(),
    ...(unsafeFs ? etcdUnsafeFsFiles() : []),
  ]);
  const labels = commonLabels(cluster.name, { [ROLE_LABEL]: CONTROL_PLANE_ROLE });
  const kubeadmConfigSpec = {
    format: 'cloud-config',
    clusterConfiguration: {
      controllerManager: { extraArgs: [{ name: 'cloud-provider', value: 'external' }] },
      etcd: { local: { extraArgs: ETCD_EXTRA_ARGS.map((a) => ({ ...a })) } },
    },
    initConfiguration: { nodeRegistration: nodeRegistration(), ...kubeadmPatches(serving) },
    joinConfiguration: { nodeRegistration: nodeRegistration(), ...kubeadmPatches(serving) },
    files,
    ...nonEmpty('preKubeadmCommands', [...(spec.blockMetadataService ? NODE_METADATA_BLOCK_PRE_COMMANDS : []), ...(unsafeFs ? ETCD_UNSAFE_FS_PRE_COMMANDS : []), ...commonPreKubeadmCommands(env)]),
    postKubeadmCommands: nodeCommands(ETCD_MAINTENANCE_POST_COMMANDS),
  };
  // the first control-plane node carries the most: ClusterConfiguration and InitConfiguration
  const { clusterConfiguration, initConfiguration } = kubeadmConfigSpec;
  checkNodeUserDataSize(`cluster ${cluster.name}, control plane`, kubeadmConfigSpec, 'init', [clusterConfiguration, initConfiguration]);
  return {
    apiVersion: API.controlPlane.version,
    kind: 'KubeadmControlPlane',
    metadata: { name: controlPlaneName(cluster.name), namespace: clusterNamespace(inputs), labels },
    spec: {
      replicas: spec.controlPlane.count,
      version: cluster.kubernetesVersion,
      machineTemplate: {
        metadata: { labels },
        spec: { infrastructureRef: refTo(machineTemplate) },
      },
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
      kubeadmConfigSpec,
    },
  };
}

function nonEmpty(key: string, list: readonly string[]): Record<string, string[]> {
  // systemctl daemon-reload may be asked for twice; run it once
  const unique = nodeCommands(list);
  return unique.length > 0 ? { [key]: unique } : {};
}
