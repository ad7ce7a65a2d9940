/**
 * OCCM runs as a cluster-critical pod: until it initialises a Node (providerID, addresses, the
 * uninitialized taint removed) no ordinary pod schedules there. A kubelet under disk or memory
 * pressure admits only critical pods (seen on a booted cluster: `Pod was rejected: The node had
 * condition: [DiskPressure]`, OCCM at priority 0, no Node initialised), evicts them last, and lower
 * priorities cannot preempt them.
 */
import { parse } from 'yaml';
import { buildAddonObjects } from '../../lib/addons';
import { clusterOf, makeEnv } from '../capi/fixtures';

test('the OCCM HelmChartProxy asks for priorityClassName system-cluster-critical (the chart sets none)', () => {
  const env = makeEnv('clusters:\n  c: {}\n');
  const hcp: any = buildAddonObjects({ env, cluster: clusterOf(env, 'c') }).find((o) => o.kind === 'HelmChartProxy' && o.metadata.labels!['capi-openstack-cdktf/addon'] === 'openstack-cloud-controller-manager');
  expect(parse(hcp.spec.valuesTemplate).priorityClassName).toBe('system-cluster-critical');
});
