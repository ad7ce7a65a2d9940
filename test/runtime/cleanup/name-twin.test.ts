/**
 * A cluster name that another environment's cluster shares (prefix `a` + environment `b-c` and
 * prefix `a-b` + environment `c` give the same names): OCCM and Cinder CSI mark both clusters'
 * resources alike, so the cleanup deletes nothing when the project holds a second API floating IP
 * described `<name> Kubernetes API`. Against the fake OpenStack API on 127.0.0.1.
 */
import { cleanupClusterLeftovers } from '../../../lib/runtime/cleanup/leftovers';
import { FakeOpenStack, OTHER_PROJECT } from './support/fake-openstack';
import { CLUSTER, fip, ids, options, populate } from './support/leftovers-fixtures';

let fake: FakeOpenStack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const api = (id: string, extra: Record<string, unknown> = {}) => fip(id, `${CLUSTER} Kubernetes API`, `port-${id}`, extra);

describe('cleanupClusterLeftovers with a twin cluster name in the project', () => {
  test('two API floating IPs of the name: nothing is deleted, both are named, the run succeeds', async () => {
    fake = await FakeOpenStack.start({ adminView: true });
    populate(fake);
    fake.floatingips.push(api('api1'), api('api2'));
    const before = { lbs: ids(fake.loadbalancers), fips: ids(fake.floatingips), volumes: ids(fake.volumes), snapshots: ids(fake.snapshots) };
    const lines: string[] = [];
    const result = await cleanupClusterLeftovers(options(fake, lines));
    expect(fake.mutations()).toEqual([]);
    expect({ lbs: ids(fake.loadbalancers), fips: ids(fake.floatingips), volumes: ids(fake.volumes), snapshots: ids(fake.snapshots) }).toEqual(before);
    expect(result.deleted).toEqual([]);
    expect(result.kept.map((k) => `${k.kind} ${k.id}: ${k.reason}`)).toEqual([
      `floating IP api1: another cluster of the project is named "${CLUSTER}" too`,
      `floating IP api2: another cluster of the project is named "${CLUSTER}" too`,
    ]);
    expect(lines.join('\n')).toContain(`NOTHING DELETED: 2 floating IPs are described "${CLUSTER} Kubernetes API", so another environment has a cluster named "${CLUSTER}" in this project`);
  });

  test('its own API floating IP alone (or another project\'s) is no twin: the cluster\'s leftovers go, the API floating IP stays', async () => {
    fake = await FakeOpenStack.start({ adminView: true });
    populate(fake);
    fake.floatingips.push(api('api1'), api('api9', { project_id: OTHER_PROJECT }));
    const result = await cleanupClusterLeftovers(options(fake, []));
    expect(result.deleted.map((d) => d.id).sort()).toEqual(['f1', 'f2', 'lb1', 'lb2', 's1', 'sg1', 'v1', 'v2', 'v5']);
    expect(ids(fake.floatingips)).toContain('api1');
  });
});
