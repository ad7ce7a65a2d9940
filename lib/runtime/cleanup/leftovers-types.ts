/** What the leftovers cleanup takes and gives back. */
import { OpenStackCredentials } from '../openstack-session';

export interface CleanupOptions extends OpenStackCredentials {
  /** OCCM's `--cluster-name`. */
  readonly occmClusterName: string;
  /** Cinder CSI's `--cluster`. @default occmClusterName */
  readonly csiClusterName?: string;
  /**
   * Network whose servers must be gone before anything is deleted (CAPO's
   * `k8s-clusterapi-cluster-<namespace>-<cluster>`). @default - no wait
   */
  readonly machineNetworkName?: string;
  /** Delete Cinder CSI volumes and snapshots. @default true */
  readonly deleteVolumes?: boolean;
  /** List what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Bound of the whole run. */
  readonly timeoutMs: number;
  /** Between two looks at resources being deleted. @default 5000 */
  readonly pollIntervalMs?: number;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

export type ResourceKind = 'load balancer' | 'floating IP' | 'security group' | 'volume snapshot' | 'volume';

export interface ResourceRef {
  readonly kind: ResourceKind;
  readonly id: string;
  /** Name / address, for people. */
  readonly label: string;
}

export interface CleanupResult {
  readonly projectId: string;
  /** Deleted (or, in a dry run, to be deleted). */
  readonly deleted: readonly ResourceRef[];
  /** Looked like the cluster's but are left alone, with why. */
  readonly kept: readonly (ResourceRef & { readonly reason: string })[];
  /** Services not in the catalog, e.g. `load-balancer`. */
  readonly skippedServices: readonly string[];
  readonly seconds: number;
}

/** The cleanup could not finish; the message is one line naming what is left and why. */
export class CleanupError extends Error {}
