import { Construct } from 'constructs';
import { EnvironmentConfig, ResolvedCloud } from '../config/resolve';
import { OpenstackProvider } from '../gen/openstack/provider';
import { terraformLiteral } from '../terraform/terraform-literal';
import { checkCloudArgument, checkEnvironmentArgument } from './stack-props';

/**
 * The OpenStack provider of a stack, logged in with a clouds.yaml entry of the environment: the
 * workload stacks with `cloud`, the management stack with `managementCloud` (`management.cloud`,
 * a project of its own, else the same). A private CA given in the environment file is trusted by
 * Terraform too (a `cacert` of the clouds.yaml entry the provider reads itself), and Terraform
 * uses the same endpoint interface as CAPO.
 *
 * @param cloud the entry to log in with: `environment.managementCloud` for the stack of a
 *              `ManagementCluster`; @default environment.cloud (the workload clusters')
 */
export function environmentOpenstackProvider(scope: Construct, env: EnvironmentConfig, cloud?: ResolvedCloud): OpenstackProvider {
  checkEnvironmentArgument('environmentOpenstackProvider(scope, environment, cloud)', env);
  cloud ??= env.cloud;
  checkCloudArgument('environmentOpenstackProvider(scope, environment, cloud)', cloud);
  return new OpenstackProvider(scope, 'OpenStack', {
    cloud: terraformLiteral(cloud.name),
    region: terraformLiteral(cloud.region),
    endpointType: cloud.interface,
    cacertFile: env.spec.cloud.caCertificateFile ? terraformLiteral(cloud.caCertificateFile) : undefined,
  });
}
