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
/** The cluster starts on the default minor and the upgrade test moves it one minor up (the local cloud has both images). */
export const FIRST_VERSION = 'v1.36.5';
export const NEXT_VERSION = 'v1.37.2';
/** No OCCM / Cinder CSI chart line for v1.37 is released: the cluster keeps the v1.36 charts across the upgrade, as docs/day-2.md tells operators. */
export const ADDON_CHART_VERSIONS = { openstackCloudControllerManager: '2.36.4', cinderCsi: '2.36.4' };
/**
 * The local cloud has one hypervisor: a control-plane roll-out creates its new machine beside the
 * old one (KCP's surge), which hard anti-affinity refuses there ("No valid host was found").
 */
export const CONTROL_PLANE_ANTI_AFFINITY = 'soft' as const;
export const BASE_VARIANT = { workerRootVolumeGb: WORKER_ROOT_VOLUME_GB, disabledAddons: [DISABLED_ADDON.key], kubernetesVersion: FIRST_VERSION, addonVersions: ADDON_CHART_VERSIONS, controlPlaneAntiAffinity: CONTROL_PLANE_ANTI_AFFINITY, apiAllowedCidrs: API_ALLOWED_CIDRS, managementEgressCidr: MANAGEMENT_EGRESS_CIDR, failureDomains: [AVAILABILITY_ZONE] };
