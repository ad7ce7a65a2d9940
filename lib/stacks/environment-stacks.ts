import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { ManagementStack } from './management-stack';
import { checkEnvironmentArgument } from './stack-props';
import { WorkloadClusterStack } from './workload-cluster-stack';

export interface EnvironmentStacks {
  /** undefined when the environment brings its own management cluster. */
  readonly management?: ManagementStack;
  /** By cluster name. */
  readonly clusters: Readonly<Record<string, WorkloadClusterStack>>;
}

/** All stacks of one environment, named `<env>-management` and `<env>-<cluster>` (each on the environment's stateBackend, set by its construct). */
export function buildEnvironmentStacks(scope: Construct, env: EnvironmentConfig): EnvironmentStacks {
  checkEnvironmentArgument('buildEnvironmentStacks(scope, environment)', env);
  const management = env.spec.existingManagementCluster ? undefined : new ManagementStack(scope, env.managementStackName, { environment: env });
  const clusters: Record<string, WorkloadClusterStack> = {};
  for (const cluster of env.clusters) {
    const stack = new WorkloadClusterStack(scope, cluster.stackName, { environment: env, cluster, management });
    if (management) stack.addDependency(management);
    clusters[cluster.name] = stack;
  }
  return { management, clusters };
}
