import { Fn, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagementCluster } from '../clusters/management-cluster';
import { IManagementCluster } from '../clusters/management-cluster-ref';
import { EnvironmentConfig } from '../config/resolve';
import { TlsProvider } from '../gen/tls/provider';
import { renderKubeconfig } from '../kubeconfig/kubeconfig';
import { EnvironmentGuard } from '../terraform/environment-guard';
import { environmentOpenstackProvider } from './openstack-provider';
import { checkStackEnvironment } from './stack-props';

export interface ManagementStackProps {
  /** A loaded environment (see `loadEnvironmentFile`). */
  readonly environment: EnvironmentConfig;
}

/**
 * `<env>-management`: the providers (OpenStack from the environment's management clouds.yaml entry, TLS) and
 * a `ManagementCluster`, with its connection details as outputs. Completes when the cluster is ready.
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
    this.outputs(env, this.cluster);
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

  private outputs(env: EnvironmentConfig, cluster: ManagementCluster): void {
    // cdktf renders an output's dependsOn as a template string, which Terraform refuses; plain addresses instead.
    const afterAddresses = cluster.readyResources.map((r) => `${r.terraformResourceType}.${r.friendlyUniqueId}`);
    new TerraformOutput(this, 'api_endpoint', { value: cluster.apiEndpoint, description: 'Management Kubernetes API' }).addOverride('depends_on', afterAddresses);
    // not secret, but a PEM block in every deploy's summary is noise: `terraform output -json` has it
    new TerraformOutput(this, 'ca_certificate', { value: cluster.caCertificatePem, sensitive: true, description: 'CA of the management cluster (PEM)' });
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
