/**
 * What the CAPI builders need. Everything Terraform only knows at apply time is an opaque string
 * (possibly a cdktf token); the builders never parse those, they only place them.
 */
import { EnvironmentConfig, ResolvedCluster } from '../config';
import { DNS_LABEL, DNS_LABEL_MAX_LENGTH } from '../config/naming';

export interface ServerGroupIds {
  /** Server group of the control-plane nodes; undefined = no server group (antiAffinity `none`). */
  readonly controlPlane?: string;
  /** Per node group name; a missing or undefined entry = no server group. */
  readonly nodeGroups: Readonly<Record<string, string | undefined>>;
}

export interface WorkloadClusterInputs {
  readonly env: EnvironmentConfig;
  readonly cluster: ResolvedCluster;
  /**
   * Namespace of the cluster's objects on the management cluster.
   * @default the cluster's resolved `namespace`, `<prefix>-<environment>-<cluster>` (unique per
   *          project, so CAPO's OpenStack resource names do not collide between environments)
   */
  readonly namespace?: string;
  /** Address of the floating IP created by the workload stack; pinned as the API endpoint. Opaque. */
  readonly apiServerFloatingIp: string;
  /** Name of the Secret (in `namespace`) with `clouds.yaml` (+ `cacert`) of the per-cluster credential. */
  readonly cloudsSecretName: string;
  /**
   * Entry of that clouds.yaml to use.
   * @default 'openstack'
   */
  readonly cloudName?: string;
  /** External network id (floating IPs, router gateway). Opaque. */
  readonly externalNetworkId: string;
  /**
   * Address or CIDR the management cluster reaches the workload API from (its egress / floating IP).
   * Always added to the API load balancer's allowed CIDRs when those are restricted. Opaque.
   */
  readonly managementCidrForApiAccess: string;
  readonly serverGroupIds: ServerGroupIds;
  /** Extra security groups (by name) put on every node, e.g. the ones the workload stack creates. */
  readonly nodeSecurityGroupNames?: readonly string[];
  /** Nova key pair for the nodes (break-glass access). */
  readonly sshKeyName?: string;
  /**
   * Root volume size per flavor name, for machines whose `rootVolumeSizeGb` is 0: > 0 = boot from a
   * volume of that size (the flavor has no disk), 0 = boot from the flavor disk. Flavors not listed
   * fall back to the SCS naming standard (`SCS-2V-4` has no disk → 25 GB) and else to the flavor disk.
   * Must be plain numbers known at synth time (they are part of the template's content hash).
   */
  readonly rootVolumeSizeGbWhenDiskless?: Readonly<Record<string, number | undefined>>;
}

/** Size used for diskless flavors when the operator gives none (old tool default). */
export const DEFAULT_DISKLESS_ROOT_VOLUME_GB = 25;

/** The namespace of a cluster's objects on the management cluster. */
export function clusterNamespace(inputs: Pick<WorkloadClusterInputs, 'cluster' | 'namespace'>): string {
  // the resolved namespace was checked when the environment was loaded; only a given one needs it
  if (inputs.namespace === undefined) return inputs.cluster.namespace;
  const ns = inputs.namespace;
  if (ns.length > DNS_LABEL_MAX_LENGTH || !DNS_LABEL.test(ns)) {
    throw new Error(
      `expected the given management namespace of cluster "${inputs.cluster.name}" to be a DNS label of at most ${DNS_LABEL_MAX_LENGTH} characters, found "${ns}" (${ns.length} characters)`,
    );
  }
  return ns;
}

/** Opaque inputs by a stable placeholder name (see content-hash.ts). */
export function opaqueInputs(inputs: WorkloadClusterInputs): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {
    apiServerFloatingIp: inputs.apiServerFloatingIp,
    externalNetworkId: inputs.externalNetworkId,
    managementCidrForApiAccess: inputs.managementCidrForApiAccess,
    'serverGroup.controlPlane': inputs.serverGroupIds.controlPlane,
  };
  for (const [group, id] of Object.entries(inputs.serverGroupIds.nodeGroups)) out[`serverGroup.${group}`] = id;
  return out;
}
