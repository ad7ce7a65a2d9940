/**
 * One environment file may not give two of its resources of one kind the same name: names are
 * joined with `-` (see owned-names.ts), so cluster `x` with node group `y-z` and cluster `x-y` with
 * node group `z` would share a server group, and a node group `control-plane` would share the
 * control-plane server group's name. Shared names make CAPO pick the wrong server group and make
 * exact-name ownership (orphans, leftovers cleanup) meaningless.
 */
import { PathIssue } from './cross-checks';
import { EnvironmentSpec } from './environment-schema';
import { clusterResourceName, environmentResourcePrefix } from './naming';
import { RESERVED_NODE_GROUP_NAMES, controlPlaneServerGroupName, nodeGroupServerGroupName } from './owned-names';

export function nameClashIssues(spec: EnvironmentSpec, environment: string): PathIssue[] {
  const issues: PathIssue[] = [];
  const stem = environmentResourcePrefix(spec.prefix, environment);
  const taken = new Map<string, string>();
  const claim = (name: string, what: string, path: readonly PropertyKey[]) => {
    const earlier = taken.get(name);
    if (earlier === undefined) taken.set(name, what);
    else issues.push({ path, message: `expected a name whose server group "${name}" no other part of the file has, found it is also the server group of ${earlier}` });
  };
  for (const cluster of Object.keys(spec.clusters)) {
    claim(controlPlaneServerGroupName(clusterResourceName(stem, cluster)), `clusters.${cluster}.controlPlane`, ['clusters', cluster]);
  }
  for (const [cluster, c] of Object.entries(spec.clusters)) {
    const seen = new Set<string>();
    c.nodeGroups.forEach((g, i) => {
      const path = ['clusters', cluster, 'nodeGroups', i, 'name'];
      if (RESERVED_NODE_GROUP_NAMES.includes(g.name)) {
        issues.push({ path, message: `expected a node group name other than ${RESERVED_NODE_GROUP_NAMES.map((n) => `"${n}"`).join(', ')} (reserved: the control plane's server group is "<cluster>-control-plane"), found "${g.name}"` });
        return;
      }
      if (seen.has(g.name)) return; // reported as a duplicate node group by the cross-checks
      seen.add(g.name);
      claim(nodeGroupServerGroupName(clusterResourceName(stem, cluster), g.name), `clusters.${cluster}.nodeGroups[${i}] ("${g.name}")`, path);
    });
  }
  return issues;
}
