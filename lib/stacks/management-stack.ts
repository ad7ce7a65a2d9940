import { TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagementCluster } from '../clusters/management-cluster';
import { IManagementCluster } from '../clusters/management-cluster-ref';
import { EnvironmentConfig } from '../config/resolve';
import { TlsProvider } from '../gen/tls/provider';
import { EnvironmentGuard } from '../terraform/environment-guard';
import { environmentOpenstackProvider } from './openstack-provider';
import { checkStackEnvironment } from './stack-props';

export interface ManagementStackProps {
  /** A loaded environment (see `loadEnvironmentFile`). */
  readonly environment: EnvironmentConfig;
}

/**
 * `<env>-management`: the providers (OpenStack from the environment's management clouds.yaml entry, TLS) and
 * a `ManagementCluster`, whose connection details are the stack's outputs (`kubeconfig`, `api_endpoint`,
 * …). Completes when the cluster is ready.
 */
export class ManagementStack extends TerraformStack implements IManagementCluster {
  /** The stack's body; the connection details below are its own. */
  public readonly cluster: ManagementCluster;

  constructor(scope: Construct, id: string, props: ManagementStackProps) {
    super(scope, id);
    const env = checkStackEnvironment(this, 'ManagementStack', props);
    new EnvironmentGuard(this, 'Guard', env.name);
    // management.cloud: a project the workload clusters' credentials cannot reach
    environmentOpenstackProvider(this, env, env.managementCloud);
    new TlsProvider(this, 'Tls');
    // 'Default' keeps the resource addresses of the stack's body as they were before the construct existed.
    this.cluster = new ManagementCluster(this, 'Default', { environment: env });
  }

  public get apiEndpoint(): string { return this.cluster.apiEndpoint; }
  public get floatingIp(): string { return this.cluster.floatingIp; }
  public get caCertificatePem(): string { return this.cluster.caCertificatePem; }
  public get adminCertificatePem(): string { return this.cluster.adminCertificatePem; }
  /** Sensitive. */
  public get adminKeyPem(): string { return this.cluster.adminKeyPem; }
  public get externalNetworkId(): string { return this.cluster.externalNetworkId; }
  public get externalNetworkName(): string { return this.cluster.externalNetworkName; }
  public get nodeAccessSecurityGroupName(): string { return this.cluster.nodeAccessSecurityGroupName; }
  public get environmentName(): string { return this.cluster.environmentName; }
}
