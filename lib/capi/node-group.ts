/** One node group: OpenStackMachineTemplate + KubeadmConfigTemplate + MachineDeployment. */
import { NodeGroupSpec } from '../config';
import { contentAddressedName } from './content-hash';
import { API, CLUSTER_NAME_LABEL, KubeObject, ROLE_LABEL, commonLabels, refTo } from '../objects/kube-object';
import { WorkloadClusterInputs, clusterNamespace, opaqueInputs } from './inputs';
import { kubeadmPatches, nodeCommands, nodeRegistration, sortedFiles, splitNodeLabels, wantsServingCerts } from './kubeadm';
import { buildMachineTemplate } from './machine-template';
import { commonNodeFiles, commonPreKubeadmCommands } from './node-files';
import { NODE_METADATA_BLOCK_PRE_COMMANDS, nodeMetadataBlockFiles } from './metadata-block';
import { checkNodeUserDataSize } from './node-user-data-size';

/** Label CAPI puts on the Machines of a MachineDeployment. */
export const DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';

export function machineDeploymentName(clusterName: string, group: string): string {
  return `${clusterName}-${group}`;
}

export interface NodeGroupObjects {
  readonly machineTemplate: KubeObject;
  readonly bootstrapTemplate: KubeObject;
  readonly machineDeployment: KubeObject;
}

export function buildKubeadmConfigTemplate(inputs: WorkloadClusterInputs, group: NodeGroupSpec): KubeObject {
  const { env, cluster } = inputs;
  const serving = wantsServingCerts(cluster.spec);
  const { kubelet } = splitNodeLabels(group.labels);
  const block = cluster.spec.blockMetadataService;
  const pre = nodeCommands([...(block ? NODE_METADATA_BLOCK_PRE_COMMANDS : []), ...commonPreKubeadmCommands(env)]);
  const files = sortedFiles([...(block ? nodeMetadataBlockFiles() : []), ...commonNodeFiles(env, cluster, inputs.apiServerFloatingIp, serving)]);
  checkNodeUserDataSize(`cluster ${cluster.name}, node group ${group.name}`, { files, preKubeadmCommands: pre }, 'worker', [{ nodeRegistration: nodeRegistration(kubelet), ...kubeadmPatches(serving) }]);
  const spec = {
    template: {
      spec: {
        format: 'cloud-config',
        joinConfiguration: { nodeRegistration: nodeRegistration(kubelet), ...kubeadmPatches(serving) },
        // the CRD wants at least one item when the field is there
        ...(files.length > 0 ? { files } : {}),
        ...(pre.length > 0 ? { preKubeadmCommands: pre } : {}),
      },
    },
  };
  return {
    apiVersion: API.bootstrap.version,
    kind: 'KubeadmConfigTemplate',
    metadata: {
      name: contentAddressedName(machineDeploymentName(cluster.name, group.name), spec, opaqueInputs(inputs)),
      namespace: clusterNamespace(inputs),
      labels: commonLabels(cluster.name, { [ROLE_LABEL]: group.name }),
    },
    spec,
  };
}

/** The failure domain of a group: its own, else the cluster's first one, else none. */
export function nodeGroupFailureDomain(inputs: WorkloadClusterInputs, group: NodeGroupSpec): string | undefined {
  return group.failureDomain ?? inputs.cluster.failureDomains[0];
}

export function buildNodeGroup(inputs: WorkloadClusterInputs, group: NodeGroupSpec): NodeGroupObjects {
  const { cluster } = inputs;
  const name = machineDeploymentName(cluster.name, group.name);
  const machineTemplate = buildMachineTemplate(inputs, {
    role: group.name,
    flavor: group.flavor,
    metadata: group.metadata,
    rootVolumeSizeGb: group.rootVolumeSizeGb,
    serverGroupId: inputs.serverGroupIds.nodeGroups[group.name],
  });
  const bootstrapTemplate = buildKubeadmConfigTemplate(inputs, group);
  const selectorLabels = { [CLUSTER_NAME_LABEL]: cluster.name, [DEPLOYMENT_NAME_LABEL]: name };
  const failureDomain = nodeGroupFailureDomain(inputs, group);
  const machineDeployment: KubeObject = {
    apiVersion: API.cluster.version,
    kind: 'MachineDeployment',
    metadata: { name, namespace: clusterNamespace(inputs), labels: commonLabels(cluster.name, { [ROLE_LABEL]: group.name }) },
    spec: {
      clusterName: cluster.name,
      replicas: group.count,
      selector: { matchLabels: selectorLabels },
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      template: {
        metadata: { labels: { ...selectorLabels, [ROLE_LABEL]: group.name, ...splitNodeLabels(group.labels).machine } },
        spec: {
          clusterName: cluster.name,
          version: cluster.kubernetesVersion,
          bootstrap: { configRef: refTo(bootstrapTemplate) },
          infrastructureRef: refTo(machineTemplate),
          ...(failureDomain ? { failureDomain } : {}),
        },
      },
    },
  };
  return { machineTemplate, bootstrapTemplate, machineDeployment };
}
