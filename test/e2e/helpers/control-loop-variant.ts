/** What the control-loop suite's environment asks for beyond environments/local.yaml. */

/** The cluster the suite deploys (stack local-<cluster>). */
export const CLUSTER = 'e2e';
export const WORKER_ROOT_VOLUME_GB = 15;
export const DISABLED_ADDON = { key: 'metricsServer', proxy: `${CLUSTER}-metrics-server` };
export const API_ALLOWED_CIDRS = ['198.51.100.0/24'];
/** Where the management cluster's traffic comes from (this host's address on the documentation net); stays allowed. */
export const MANAGEMENT_EGRESS_CIDR = '192.0.2.2/32';
/** The local cloud's one compute availability zone, named as the cluster's failure domain. */
export const AVAILABILITY_ZONE = 'nova';
/** The cluster starts one patch behind and the rollout test moves it to the tested patch (the local cloud has both images). */
export const FIRST_VERSION = 'v1.35.9';
export const NEXT_VERSION = 'v1.35.10';
export const BASE_VARIANT = { workerRootVolumeGb: WORKER_ROOT_VOLUME_GB, disabledAddons: [DISABLED_ADDON.key], kubernetesVersion: FIRST_VERSION, apiAllowedCidrs: API_ALLOWED_CIDRS, managementEgressCidr: MANAGEMENT_EGRESS_CIDR, failureDomains: [AVAILABILITY_ZONE] };
