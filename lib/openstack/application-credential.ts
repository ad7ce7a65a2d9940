import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { IdentityApplicationCredentialV3 } from '../gen/openstack/identity-application-credential-v3';

export interface ApplicationCredentialProps {
  /** Name, unique per user. */
  readonly name: string;
  /**
   * Free-text description shown in `openstack application credential list`.
   * @default - no description
   */
  readonly description?: string;
  /**
   * Expiry as an RFC 3339 timestamp (may be a token, e.g. from a time_offset resource).
   * @default - never expires
   */
  readonly expiresAt?: string;
  /**
   * Roles the credential carries.
   * @default - the roles of the current token
   */
  readonly roles?: string[];
  /**
   * API calls the credential is limited to (service type, method, path with `*` / `**` wildcards).
   * @default - no access rules: the roles alone decide
   */
  readonly accessRules?: ApplicationCredentialAccessRule[];
}

/** One API call an application credential may make. */
export interface ApplicationCredentialAccessRule {
  /** Service type from the catalog, e.g. `compute`. */
  readonly service: string;
  /** HTTP method, e.g. `GET`. */
  readonly method: string;
  /** API path, e.g. `/v2.1/servers/*`. */
  readonly path: string;
}

/**
 * An application credential that cannot create further credentials (restricted), for the
 * controllers that talk to OpenStack on the operator's behalf.
 */
export class ApplicationCredential extends Construct {
  public readonly credentialId: string;
  /** The secret (sensitive; Terraform marks it so). */
  public readonly secret: string;
  public readonly resource: IdentityApplicationCredentialV3;

  constructor(scope: Construct, id: string, props: ApplicationCredentialProps) {
    super(scope, id);
    new PropChecks('ApplicationCredential', this).props(props);
    new PropChecks('ApplicationCredential', this).present(props, 'name').timestamp('expiresAt', props.expiresAt).done();
    requireProvider(this, 'ApplicationCredential', 'openstack');
    this.resource = new IdentityApplicationCredentialV3(this, 'Credential', {
      name: props.name,
      description: props.description,
      unrestricted: false,
      expiresAt: props.expiresAt,
      roles: props.roles,
      accessRules: props.accessRules?.map((r) => ({ ...r })),
    });
    this.credentialId = this.resource.id;
    this.secret = this.resource.secret;
  }
}
