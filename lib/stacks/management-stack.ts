import { Fn, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagementCluster } from '../clusters/management-cluster';
import { IManagementCluster } from '../clusters/management-cluster-ref';
import { EnvironmentConfig } from '../config/resolve';
import { TlsProvider } from '../gen/tls/provider';
import { renderKubeconfig } from '../kubeconfig/kubeconfig';
import { EnvironmentGuard } from '../terraform/environment-guard';
import { environmentOpenstackProvider } from './openstack-provider';

export interface ManagementStackProps {
  /** A loaded environment (see `loadEnvironmentFile`). */
  readonly environment: EnvironmentConfig;
}

/**
 * `<env>-management`: the providers (OpenStack from the environment's clouds.yaml entry, TLS) and
 * a `ManagementCluster`, with its connection details as outputs. Completes when the cluster is ready.
 */
export class ManagementStack extends TerraformStack implements IManagementCluster {
  public readonly apiEndpoint: string;
  public readonly floatingIp: string;
  public readonly caCertificatePem: string;
  public readonly adminCertificatePem: string;
  /** Sensitive. */
  public readonly adminKeyPem: string;
  public readonly externalNetworkId: string;
  public readonly externalNetworkName: string;
  public readonly nodeAccessSecurityGroupName: string;
  public readonly cluster: ManagementCluster;

  constructor(scope: Construct, id: string, props: ManagementStackProps) {
    super(scope, id);
    const env = props.environment;
    new EnvironmentGuard(this, 'Guard', env.name);
    environmentOpenstackProvider(this, env);
    new TlsProvider(this, 'Tls');
    // 'Default' keeps the resource addresses of the stack's body as they were before the construct existed.
    const cluster = new ManagementCluster(this, 'Default', { environment: env });
    this.cluster = cluster;
    this.apiEndpoint = cluster.apiEndpoint;
    this.floatingIp = cluster.floatingIp;
    this.caCertificatePem = cluster.caCertificatePem;
    this.adminCertificatePem = cluster.adminCertificatePem;
    this.adminKeyPem = cluster.adminKeyPem;
    this.externalNetworkId = cluster.externalNetworkId;
    this.externalNetworkName = cluster.externalNetworkName;
    this.nodeAccessSecurityGroupName = cluster.nodeAccessSecurityGroupName;
    this.outputs(env, cluster);
  }

  private outputs(env: EnvironmentConfig, cluster: ManagementCluster): void {
    // cdktf renders an output's dependsOn as a template string, which Terraform refuses; plain addresses instead.
    const afterAddresses = cluster.readyResources.map((r) => `${r.terraformResourceType}.${r.friendlyUniqueId}`);
    new TerraformOutput(this, 'api_endpoint', { value: cluster.apiEndpoint, description: 'Management Kubernetes API' }).addOverride('depends_on', afterAddresses);
    new TerraformOutput(this, 'ca_certificate', { value: cluster.caCertificatePem, description: 'CA of the management cluster (PEM)' });
    new TerraformOutput(this, 'admin_certificate', { value: cluster.adminCertificatePem, sensitive: true, description: 'Admin client certificate (PEM)' });
    new TerraformOutput(this, 'admin_key', { value: cluster.adminKeyPem, sensitive: true, description: 'Admin client key (PEM)' });
    new TerraformOutput(this, 'kubeconfig', {
      sensitive: true,
      description: 'Kubeconfig of the management cluster (admin)',
      value: renderKubeconfig({
        clusterName: env.managementStackName,
        server: cluster.apiEndpoint,
        caCertificateBase64: Fn.base64encode(cluster.caCertificatePem),
        clientCertificateBase64: Fn.base64encode(cluster.adminCertificatePem),
        clientKeyBase64: Fn.base64encode(cluster.adminKeyPem),
      }),
    }).addOverride('depends_on', afterAddresses);
    new TerraformOutput(this, 'floating_ip', { value: cluster.floatingIp, description: 'Public address of the management VM' });
    new TerraformOutput(this, 'instance_id', { value: cluster.instanceId });
  }
}
