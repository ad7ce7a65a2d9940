/**
 * The last test of the booted-cluster suites: `cdktf destroy` of the stack, then nothing is left —
 * the hypervisor has removed every stand-in and amphora, the project listing is as before the
 * deploy, every load balancer the hypervisor followed (the API's, the Services' that OCCM made)
 * and each floating IP it saw on one is gone from OpenStack, no container or network of the
 * suite's tag is on the test dockerd, the state is empty.
 */
import { BootedCluster } from '../support/booted-cluster';
import { testDocker } from '../support/hypervisor-kit';
import { projectListing } from '../support/project-listing';
import { waitFor } from '../support/workload-kube';
import { expectExit } from '../support/workload-process';

export interface DestroyCheck {
  readonly stack: string;
  readonly dockerHost: string;
  /** Prefix of the suite's container and network names. */
  readonly tag: string;
  readonly figures: Record<string, unknown>;
  readonly timed: <T>(what: string, f: () => Promise<T>) => Promise<T>;
  /** Runs once the stand-ins are gone, before the hypervisor stops (e.g. a stand-in of a node controller). */
  readonly beforeHypervisorStops?: () => Promise<void>;
}

export async function expectDestroyLeavesNothing(run: BootedCluster, o: DestroyCheck): Promise<void> {
  expectExit(await o.timed('destroy (cdktf destroy)', () => run.project!.cdktf(['destroy', o.stack, '--auto-approve'], 30 * 60_000)), `cdktf destroy ${o.stack}`);
  const hv = run.hypervisor!;
  await waitFor('the hypervisor to remove every stand-in and amphora', 2 * 60_000, async () => (hv.nodes.size === 0 && hv.loadBalancers.standing.size === 0 ? true : undefined), 1_000);
  const followed = [...hv.loadBalancers.followed.values()];
  await o.beforeHypervisorStops?.();
  await run.stopHypervisor(o.figures);
  expect(await projectListing(run.openstack)).toEqual(run.before);
  // named, not only absent from the listing: what OCCM made lives outside Terraform's state
  const left = [];
  for (const lb of followed) {
    const status = (await run.openstack.request('GET', 'load-balancer', `/v2/lbaas/loadbalancers/${lb.id}`)).status;
    const fips = await Promise.all([...lb.floatingIps].map(async ([id, address]) => `${address} ${(await run.openstack.request('GET', 'network', `/v2.0/floatingips/${id}`)).status}`));
    left.push({ loadBalancer: `${lb.name} ${status}`, floatingIps: fips });
  }
  o.figures.loadBalancersAfterDestroy = left;
  expect(left).toEqual(followed.map((lb) => ({ loadBalancer: `${lb.name} 404`, floatingIps: [...lb.floatingIps.values()].map((a) => `${a} 404`) })));
  expect(testDocker(o.dockerHost, ['ps', '-a', '--format', '{{.Names}}', '--filter', `name=^${o.tag}-`]).out.trim()).toBe('');
  expect(testDocker(o.dockerHost, ['network', 'ls', '--format', '{{.Name}}', '--filter', `name=^${o.tag}-`]).out.trim()).toBe('');
  expect(await run.project!.stateList()).toEqual([]);
}
