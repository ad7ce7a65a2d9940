import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { IManagementCluster } from '../clusters/management-cluster-ref';
import { managementKubernetesConnection } from '../clusters/management-connection';
import { WorkloadCluster, WorkloadManagement } from '../clusters/workload-cluster';
import { existingKubeconfigPath } from '../config/existing-management';
import { EnvironmentConfig, ResolvedCluster } from '../config/resolve';
import { KubernetesProvider, KubernetesProviderConfig } from '../gen/kubernetes/provider';
import { TimeProvider } from '../gen/time/provider';
import { EnvironmentGuard } from '../terraform/environment-guard';
import { PropChecks } from '../terraform/prop-checks';
import { environmentOpenstackProvider } from './openstack-provider';
import { checkStackEnvironment } from './stack-props';
import { terraformLiteral } from '../terraform/terraform-literal';

export interface WorkloadClusterStackProps {
  /** The validated environment the cluster belongs to (cloud, prefix, management settings). */
  readonly environment: EnvironmentConfig;
  /** The cluster entry, with defaults applied and versions resolved. */
  readonly cluster: ResolvedCluster;
  /**
   * The management cluster of the environment (usually its `ManagementStack`); its outputs configure
   * the Kubernetes provider.
   * @default - the environment's existingManagementCluster kubeconfig
   */
  readonly management?: IManagementCluster;
}

/**
 * `<env>-<cluster>`: the providers (OpenStack, time, Kubernetes pointed at the management cluster)
 * and a `WorkloadCluster`, whose outputs are the stack's (`kubeconfig_secret`, `namespace`, …).
 */
export class WorkloadClusterStack extends TerraformStack {
  public readonly namespace: string;
  public readonly apiFloatingIp: string;
  public readonly cluster: WorkloadCluster;

  constructor(scope: Construct, id: string, props: WorkloadClusterStackProps) {
    super(scope, id);
    const env = checkStackEnvironment(this, 'WorkloadClusterStack', props);
    const cluster = props.cluster;
    new EnvironmentGuard(this, 'Guard', env.name);
    environmentOpenstackProvider(this, env);
    new TimeProvider(this, 'Time');
    const management = managementOf(this, env, props.management);
    new KubernetesProvider(this, 'Management', kubernetesConnection(management));
    // 'Default' keeps the resource addresses of the stack's body as they were before the construct existed.
    this.cluster = new WorkloadCluster(this, 'Default', { environment: env, cluster, management });
    this.namespace = this.cluster.namespace;
    this.apiFloatingIp = this.cluster.apiFloatingIp;
  }
}

/** The management cluster as the stack's provider and the construct see it. */
type StackManagement = WorkloadManagement & ({ readonly kind: 'created' } | { readonly kind: 'existing'; readonly kubeconfigFile: string; readonly context?: string });

function managementOf(stack: Construct, env: EnvironmentConfig, created: IManagementCluster | undefined): StackManagement {
  if (created) return { kind: 'created', cluster: created };
  const existing = env.spec.existingManagementCluster;
  if (!existing) {
    const checks: PropChecks = new PropChecks('WorkloadClusterStack', stack);
    checks.refuse('management', `the management cluster of environment "${env.name}" (its ManagementStack: ${env.file} has no existingManagementCluster)`, 'nothing');
  }
  return { kind: 'existing', egressCidr: existing.egressCidr, kubeconfigFile: existingKubeconfigPath(env.file, existing.kubeconfigFile), context: existing.context };
}

function kubernetesConnection(management: StackManagement): KubernetesProviderConfig {
  if (management.kind === 'created') return managementKubernetesConnection(management.cluster);
  return { configPath: terraformLiteral(management.kubeconfigFile), configContext: terraformLiteral(management.context) };
}

/** Where the kubeconfig of an existing management cluster is (lib/config resolves it the same way when it checks the file). */
export { existingKubeconfigPath };
