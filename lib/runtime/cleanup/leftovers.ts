/**
 * Deletes what a workload cluster's controllers left in OpenStack once the cluster is going away:
 * OCCM's Octavia load balancers (cascade), the floating IPs and security groups OCCM made for them,
 * and Cinder CSI's snapshots and volumes. Only resources provably the cluster's are touched (see
 * matchers.ts); listings are restricted to the credential's own project.
 *
 * Order: nothing at all when another cluster of the project has the same name (see hasNameTwin);
 * (optional) wait until no server of the project has a port on the cluster's network any
 * more, so nothing inside the cluster can re-create what is deleted; load balancers; floating IPs
 * (unattached, or attached to a deleted load balancer); security groups; snapshots; volumes. A
 * service missing from the catalog (no Octavia, no Cinder) is skipped with a line saying so.
 * Everything is bounded by one deadline; the result lists what was deleted, kept and failed.
 */
import { CleanupRun } from './cleanup-run';
import { removeVolumes } from './csi-leftovers';
import { CleanupOptions, CleanupResult } from './leftovers-types';
import { removeFloatingIpsAndGroups, removeLoadBalancers } from './occm-leftovers';

export * from './leftovers-types';

export async function cleanupClusterLeftovers(options: CleanupOptions): Promise<CleanupResult> {
  const run = await CleanupRun.start(options);
  if (await run.hasNameTwin()) return run.finish();
  await run.waitForMachines();
  const deletedVipPorts = await removeLoadBalancers(run);
  await removeFloatingIpsAndGroups(run, deletedVipPorts);
  await removeVolumes(run);
  return run.finish();
}
