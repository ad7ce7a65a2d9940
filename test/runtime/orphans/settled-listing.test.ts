/** listSettled / listingChanges: the orphans check judges a project only once it has stopped changing. */
import { CloudListing } from '../../../lib/runtime/orphans/find-orphans';
import { UnsettledCloudError, listSettled, listingChanges } from '../../../lib/runtime/orphans/settled-listing';

const empty: CloudListing = { networks: [], subnets: [], routers: [], ports: [], securityGroups: [], floatingIps: [], servers: [], volumes: [] };
const withNetwork: CloudListing = {
  ...empty,
  networks: [{ id: 'n1', name: 'capi-lab-mgmt' }],
  subnets: [{ id: 's1', network_id: 'n1' }],
  routers: [{ id: 'r1' }],
};
// what Neutron finished after the deploy that asked for it was killed
const withInterface: CloudListing = { ...withNetwork, ports: [{ id: 'p-if', device_owner: 'network:router_interface', device_id: 'r1', network_id: 'n1' }] };

/** A cloud whose listings are taken in turn; a clock the sleeps advance. */
function cloud(listings: CloudListing[]) {
  let clock = 0;
  let calls = 0;
  const lines: string[] = [];
  return {
    list: async () => listings[Math.min(calls++, listings.length - 1)],
    options: (settleMs: number, timeoutMs = 60_000) => ({ settleMs, timeoutMs, log: (l: string) => lines.push(l), sleep: async (ms: number) => void (clock += ms), now: () => clock }),
    calls: () => calls,
    lines,
    clock: () => clock,
  };
}

describe('listingChanges', () => {
  test('the same listing: no change', () => {
    expect(listingChanges(withInterface, { ...withInterface })).toEqual([]);
  });

  test('a new router interface is named with its router', () => {
    expect(listingChanges(withNetwork, withInterface)).toEqual(['new port p-if (on network:router_interface r1)']);
  });

  test('a floating IP moved to another port and a volume attached count as changes', () => {
    const a: CloudListing = { ...empty, floatingIps: [{ id: 'f1', port_id: 'p1' }], volumes: [{ id: 'v1' }] };
    const b: CloudListing = { ...empty, floatingIps: [{ id: 'f1', port_id: 'p2' }], volumes: [{ id: 'v1', attachments: [{ server_id: 'vm1' }] }] };
    expect(listingChanges(a, b)).toEqual([
      'gone floating IP f1 (on port p1)',
      'gone volume v1',
      'new floating IP f1 (on port p2)',
      'new volume v1 (on server vm1)',
    ]);
  });
});

describe('listSettled', () => {
  test('a resource that appears after the first listing is in the listing returned', async () => {
    const c = cloud([withNetwork, withInterface, withInterface]);
    const listing = await listSettled(c.list, c.options(10_000));
    expect(listing.ports.map((p) => p.id)).toEqual(['p-if']);
    expect(c.calls()).toBe(3);
    expect(c.lines.join('\n')).toContain('the project changed in 10s: new port p-if (on network:router_interface r1)');
  });

  test('a quiet project is listed twice, settle seconds apart', async () => {
    const c = cloud([withInterface, withInterface]);
    await listSettled(c.list, c.options(10_000));
    expect({ calls: c.calls(), waited: c.clock() }).toEqual({ calls: 2, waited: 10_000 });
  });

  test('settle 0 lists once and does not wait', async () => {
    const c = cloud([withNetwork, withInterface]);
    const listing = await listSettled(c.list, c.options(0));
    expect({ calls: c.calls(), waited: c.clock(), ports: listing.ports.length }).toEqual({ calls: 1, waited: 0, ports: 0 });
  });

  test('a project that keeps changing fails with what changed and the advice', async () => {
    const changing = Array.from({ length: 20 }, (_, i) => ({ ...empty, servers: [{ id: `vm-${i}` }] }));
    const c = cloud(changing);
    const attempt = listSettled(c.list, c.options(10_000, 30_000));
    await expect(attempt).rejects.toThrow(UnsettledCloudError);
    await expect(attempt).rejects.toThrow(/still changing after 30s \(gone server vm-\d+; new server vm-\d+\): is a deploy or destroy of it running\?/);
  });
});
