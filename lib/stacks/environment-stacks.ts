import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { ManagementStack } from './management-stack';

export interface EnvironmentStacks {
  /** undefined when the environment brings its own management cluster. */
  readonly management?: ManagementStack;
}

/** All stacks of one environment, named `<env>-management` and `<env>-<cluster>`. */
export function buildEnvironmentStacks(scope: Construct, env: EnvironmentConfig): EnvironmentStacks {
  const management = env.spec.existingManagementCluster ? undefined : new ManagementStack(scope, `${env.name}-management`, { environment: env });
  return { management };
}
