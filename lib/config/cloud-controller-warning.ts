/**
 * The nodes' kubelets always run with `--cloud-provider=external` (lib/capi/kubeadm.ts): a node
 * stays tainted `node.cloudprovider.kubernetes.io/uninitialized` and has no addresses until a cloud
 * controller manager initialises it. Turning the OCCM add-on off is legitimate only when the
 * operator runs one of their own, so `validate` says what the cluster is left without.
 */
import type { ClusterFields } from './cluster-schema';

/** The taint every node keeps until a cloud controller manager initialises it. */
export const UNINITIALIZED_NODE_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';

/** The warning for one cluster; undefined when it installs the OpenStack cloud controller manager. */
export function missingCloudControllerWarning(clusterName: string, cluster: ClusterFields): string | undefined {
  if (cluster.addons.openstackCloudControllerManager.enabled) return undefined;
  return `the OpenStack cloud controller manager is off (cluster "${clusterName}") while its kubelets run with --cloud-provider=external: `
    + `every node keeps the taint ${UNINITIALIZED_NODE_TAINT}:NoSchedule and gets no addresses, so ordinary pods never schedule, `
    + 'until a cloud controller manager you install yourself initialises it. Expected only if you run one; otherwise set addons.openstackCloudControllerManager: true';
}
