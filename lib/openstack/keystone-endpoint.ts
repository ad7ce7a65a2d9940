import { TerraformLocal } from 'cdktf';
import { Construct } from 'constructs';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';

/**
 * Keystone's URL from the service catalog of the operator's own token, for environments that give
 * no auth URL (neither in the file nor in clouds.yaml). A local keeps the quoted HCL out of Fn arguments.
 */
export function keystoneUrlFromCatalog(scope: Construct, authScope: DataOpenstackIdentityAuthScopeV3, endpointInterface: string): string {
  return new TerraformLocal(
    scope,
    'KeystoneUrl',
    `\${one(flatten([for s in ${authScope.fqn}.service_catalog : [for e in s.endpoints : e.url if e.interface == "${endpointInterface}"] if s.type == "identity"]))}`,
  ).asString;
}
