/**
 * Where an environment's stacks keep their Terraform state when the environment file names a
 * shared store (`stateBackend`): one object per stack and, next to it, the lock object Terraform
 * writes with a conditional PUT while a plan or apply holds the state.
 */
import { EnvironmentConfig } from './resolve';

export interface StateLocation {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  /** `<keyPrefix>/<stack>.tfstate` */
  readonly key: string;
  /** `<key>.tflock`: present while someone holds the lock (or a killed run left it). */
  readonly lockKey: string;
}

/** The state object of one stack of the environment, or undefined when the environment keeps local state. */
export function stateLocation(env: EnvironmentConfig, stackName: string): StateLocation | undefined {
  const b = env.spec.stateBackend;
  if (!b) return undefined;
  const key = `${b.keyPrefix ?? env.name}/${stackName}.tfstate`;
  return { endpoint: b.endpoint.replace(/\/+$/, ''), bucket: b.bucket, region: b.region, key, lockKey: `${key}.tflock` };
}

/** Every stack of the environment, management first (the order state is migrated and listed in). */
export function environmentStackNames(env: EnvironmentConfig): string[] {
  return [...(env.spec.existingManagementCluster ? [] : [env.managementStackName]), ...env.clusters.map((c) => c.stackName)];
}
