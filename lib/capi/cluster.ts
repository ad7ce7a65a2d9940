/** The Cluster object (CAPI v1beta2), without ClusterClass topology. */
import { API, CLUSTER_SELECTOR_LABEL, KubeObject, commonLabels, refTo } from '../objects/kube-object';
import { WorkloadClusterInputs, clusterNamespace } from './inputs';

export function buildCluster(inputs: WorkloadClusterInputs, openStackCluster: KubeObject, controlPlane: KubeObject): KubeObject {
  const { cluster } = inputs;
  const net = cluster.spec.network;
  return {
    apiVersion: API.cluster.version,
    kind: 'Cluster',
    metadata: {
      name: cluster.name,
      namespace: clusterNamespace(inputs),
      // the add-ons (HelmChartProxy, ClusterResourceSet) select the cluster by this label
      labels: commonLabels(cluster.name, { [CLUSTER_SELECTOR_LABEL]: cluster.name }),
    },
    spec: {
      clusterNetwork: {
        apiServerPort: 6443,
        pods: { cidrBlocks: [net.podCidr] },
        services: { cidrBlocks: [net.serviceCidr] },
        serviceDomain: 'cluster.local',
      },
      // the same endpoint CAPO reports, written up front so the spec does not change after creation
      controlPlaneEndpoint: { host: inputs.apiServerFloatingIp, port: 6443 },
      controlPlaneRef: refTo(controlPlane),
      infrastructureRef: refTo(openStackCluster),
    },
  };
}
