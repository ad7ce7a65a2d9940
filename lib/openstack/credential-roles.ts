import { Token } from 'cdktf';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';

/** Octavia's own role; its default policy refuses load balancer calls to `member` alone. */
export const LOAD_BALANCER_MEMBER_ROLE = 'load-balancer_member';

/**
 * The default roles of a cluster's credential: `member`, plus `load-balancer_member` when the
 * operator's token carries it (clouds that relax Octavia's policy do not hand it out, and an
 * application credential can only hold roles its user has).
 */
export function defaultCredentialRoles(authScope: DataOpenstackIdentityAuthScopeV3): string[] {
  return Token.asList(
    `\${concat(["member"], contains(${authScope.fqn}.roles[*].role_name, "${LOAD_BALANCER_MEMBER_ROLE}") ? ["${LOAD_BALANCER_MEMBER_ROLE}"] : [])}`,
  );
}
