import { containsToken } from './tokens';
import { toYamlText } from './yaml-text';

export interface CapoCloudsYamlProps {
  /** Name of the cloud entry, e.g. `openstack`. */
  readonly cloudName: string;
  /** Keystone URL, e.g. `https://keystone.example.com:5000/v3`. */
  readonly authUrl: string;
  /** Region, e.g. `RegionOne`. */
  readonly regionName: string;
  /** Endpoint interface, e.g. `public`. */
  readonly interface: string;
  /** ID of the application credential. */
  readonly applicationCredentialId: string;
  /** Secret of the application credential (sensitive). */
  readonly applicationCredentialSecret: string;
  /**
   * Path of the CA bundle of the OpenStack API, as seen by whoever reads this file.
   * @default - the system trust store
   */
  readonly caCertPath?: string;
}

/**
 * A clouds.yaml with one application-credential entry, as CAPO and the OpenStack clients read it.
 * Values may be cdktf tokens or Terraform expressions: those are single-quoted, so the expression
 * stays intact and what Terraform substitutes stays one scalar (Keystone-generated IDs and secrets,
 * URLs and region names contain no single quote).
 */
export function renderCapoCloudsYaml(props: CapoCloudsYamlProps): string {
  for (const [field, value] of Object.entries(props)) {
    if (typeof value !== 'string' || value.trim() === '') {
      if (field === 'caCertPath' && value === undefined) continue;
      throw new Error(`clouds.yaml: expected a non-empty ${field}, found "${String(value)}"`);
    }
    if (!containsToken(value) && /[\r\n]/.test(value)) {
      throw new Error(`clouds.yaml: ${field} must be a single line`);
    }
  }
  const entry: Record<string, unknown> = {
    auth_type: 'v3applicationcredential',
    auth: {
      auth_url: props.authUrl,
      application_credential_id: props.applicationCredentialId,
      application_credential_secret: props.applicationCredentialSecret,
    },
    region_name: props.regionName,
    interface: props.interface,
    identity_api_version: 3,
  };
  if (props.caCertPath) entry.cacert = props.caCertPath;
  if (containsToken(props.cloudName) || !/^[A-Za-z0-9_.-]+$/.test(props.cloudName)) {
    throw new Error(`clouds.yaml: expected a literal cloud name of letters, digits, "_", "." or "-", found "${props.cloudName}"`);
  }
  return toYamlText({ clouds: { [props.cloudName]: entry } });
}
