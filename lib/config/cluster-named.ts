/**
 * A workload cluster of a loaded environment by its name: the typed way to pick one (an index into
 * `environment.clusters` is `ResolvedCluster | undefined` under `noUncheckedIndexedAccess`, and a
 * wrong index fails far from the cause).
 */
import { LOADED_ENVIRONMENT } from './environment-shape';
import { describeFound } from './errors';
import { EnvironmentConfig, ResolvedCluster } from './resolve';

/**
 * The cluster `name` of `environment`, as loaded (pass it to `WorkloadCluster` or
 * `WorkloadClusterStack`).
 *
 * @throws Error naming the environment, the name asked for and the clusters it has
 */
export function clusterNamed(environment: EnvironmentConfig, name: string): ResolvedCluster {
  const clusters: readonly ResolvedCluster[] | undefined = environment?.clusters;
  if (!Array.isArray(clusters)) {
    throw new Error(`clusterNamed: expected ${LOADED_ENVIRONMENT}, found ${describeFound(environment)}`);
  }
  const found = clusters.find((c) => c.name === name);
  if (found) return found;
  const names = clusters.map((c) => `"${c.name}"`).join(', ') || 'none';
  // a cluster with no control-plane machines is kept in the file but has no stack (the old tool's off switch)
  const off = environment.spec?.clusters && Object.prototype.hasOwnProperty.call(environment.spec.clusters, name) ? ` (cluster "${name}" has controlPlane.count 0: no stack, nothing to build)` : '';
  throw new Error(`clusterNamed: expected the name of a cluster of environment "${environment.name}" (${names}), found ${describeFound(name)}${off}`);
}
