/**
 * Stack names must be unique across the environment files an app loads: `a.yaml` with cluster
 * `b-c` and `a-b.yaml` with cluster `c` both make `a-b-c`, and `x.yaml` beside `x.yml` are one
 * environment twice. cdktf refused them with "There is already a Construct with name …", naming no file.
 */
import { EnvironmentConfig } from './resolve';

/** Where a stack name comes from: the file and the field that made it. */
export interface StackOrigin {
  readonly config: EnvironmentConfig;
  /** `(file name)` for the management stack, `clusters.<name>` for a workload stack. */
  readonly field: string;
  readonly cluster?: string;
}

export interface StackCollision {
  readonly stackName: string;
  readonly first: StackOrigin;
  readonly again: StackOrigin;
}

/** Every stack an environment creates, with what made its name. */
function stacksOf(config: EnvironmentConfig): [string, StackOrigin][] {
  const management: [string, StackOrigin][] = config.spec.existingManagementCluster ? [] : [[config.managementStackName, { config, field: '(file name)' }]];
  return [...management, ...config.clusters.map((c): [string, StackOrigin] => [c.stackName, { config, field: `clusters.${c.name}`, cluster: c.name }])];
}

/** The second and later uses of each stack name, in load order. */
export function stackCollisions(configs: readonly EnvironmentConfig[]): StackCollision[] {
  const seen = new Map<string, StackOrigin>();
  const collisions: StackCollision[] = [];
  for (const config of configs) {
    for (const [stackName, origin] of stacksOf(config)) {
      const first = seen.get(stackName);
      // the same file named twice (`validate good ./environments/good.yaml`) is one environment
      if (first && first.config.file !== config.file) collisions.push({ stackName, first, again: origin });
      else if (!first) seen.set(stackName, origin);
    }
  }
  return collisions;
}

/** The message of one collision, for the file that came second. */
export function collisionMessage(c: StackCollision): string {
  if (c.first.config.name === c.again.config.name) {
    return `expected one file per environment, found ${c.first.config.file} and ${c.again.config.file} both naming environment "${c.again.config.name}" (stack "${c.stackName}"); remove or rename one`;
  }
  return `expected stack names unique across the environment files, found "${c.stackName}" (environment "${c.again.config.name}" + ${c.again.cluster ? `cluster "${c.again.cluster}"` : 'management'}) also made by ${c.first.config.file} (${c.first.field}, environment "${c.first.config.name}"); rename the cluster or the environment file`;
}
