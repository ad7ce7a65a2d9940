import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { OpenstackProvider } from '../gen/openstack/provider';
import { terraformLiteral } from '../terraform/terraform-literal';

/**
 * The OpenStack provider of a stack, logged in with the environment's clouds.yaml entry. A private
 * CA given in the environment file is trusted by Terraform too (a `cacert` of the clouds.yaml
 * entry the provider reads itself), and Terraform uses the same endpoint interface as CAPO.
 */
export function environmentOpenstackProvider(scope: Construct, env: EnvironmentConfig): OpenstackProvider {
  return new OpenstackProvider(scope, 'OpenStack', {
    cloud: terraformLiteral(env.cloud.name),
    region: terraformLiteral(env.cloud.region),
    endpointType: env.cloud.interface,
    cacertFile: env.spec.cloud.caCertificateFile ? terraformLiteral(env.cloud.caCertificateFile) : undefined,
  });
}
