/**
 * S3 credentials for the state store that expire and carry only the roles the store needs.
 *
 * Keystone's EC2 credentials have no expiry and, made with a password token, authenticate with
 * every role the user has in the project. Made with an application credential's token, Keystone
 * records that credential in them: `/v3/ec2tokens` then issues tokens with only its roles, never
 * past its `expires_at`, and none once it is deleted. So: a restricted application credential with
 * an expiry and the given roles, and the EC2 credential made with its token.
 *
 * Keystone releases that refuse credentials to delegated tokens (LP#2159643: application
 * credential tokens may not create credentials) leave only the unbound kind: the caller is told.
 */
import { randomBytes } from 'crypto';
import { keystoneV3Url, OpenStackApiError, OpenStackCredentials, OpenStackSession } from '../openstack-session';
import { projectEc2Credentials } from './ec2-credentials';
import { S3Credentials } from './sigv4';

export interface StateCredentialRequest {
  /** Name of the application credential, unique per user (a timestamp keeps it so). */
  readonly name: string;
  readonly expiresAt: Date;
  /** Roles of the application credential, by name. */
  readonly roles: readonly string[];
}

export type StateCredentials =
  | { readonly kind: 'bound'; readonly credentials: S3Credentials; readonly applicationCredentialId: string; readonly expiresAt: string; readonly roles: readonly string[] }
  | { readonly kind: 'unbound'; readonly credentials: S3Credentials; readonly created: boolean; readonly reason: string };

/**
 * EC2 credentials of the session's project bound to a fresh application credential; the unbound
 * kind only where Keystone refuses the bound one (the reason says why).
 */
export async function mintStateCredentials(session: OpenStackSession, login: OpenStackCredentials, request: StateCredentialRequest): Promise<StateCredentials> {
  if (login.auth.type === 'application_credential') {
    throw new OpenStackApiError('the clouds.yaml entry logs in with an application credential, which Keystone does not let create further credentials: use an entry that logs in with a password (auth_type: password), or take S3 credentials made by someone who does');
  }
  const userId = session.userId;
  if (!userId) throw new OpenStackApiError('Keystone did not name the user of the token: cannot make credentials for it');
  const keystone = keystoneV3Url(login.authUrl);
  const appCreds = `${keystone}/users/${encodeURIComponent(userId)}/application_credentials`;
  const made = await session.request<{ application_credential?: { id?: string; secret?: string; expires_at?: string; roles?: { name?: string }[] } }>('POST', appCreds, {
    accept: [201],
    body: {
      application_credential: {
        name: request.name,
        description: 'S3 access to the Terraform state (capi-openstack state credentials); expires',
        expires_at: request.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        roles: request.roles.map((name) => ({ name })),
        unrestricted: false,
      },
    },
  });
  const app = made.body?.application_credential;
  if (!app?.id || !app.secret) throw new OpenStackApiError(`POST ${appCreds}: Keystone answered without an id and secret`);
  const access = randomBytes(16).toString('hex');
  const secret = randomBytes(16).toString('hex');
  try {
    const scoped = await OpenStackSession.login({ ...login, auth: { type: 'application_credential', id: app.id, secret: app.secret } });
    const created = await scoped.request('POST', `${keystone}/credentials`, {
      accept: [201, 403],
      body: { credential: { type: 'ec2', user_id: userId, project_id: scoped.projectId, blob: JSON.stringify({ access, secret }) } },
    });
    if (created.status === 201) {
      const roles = (app.roles ?? []).map((r) => r.name ?? '?');
      return { kind: 'bound', credentials: { accessKeyId: access, secretAccessKey: secret }, applicationCredentialId: app.id, expiresAt: app.expires_at ?? request.expiresAt.toISOString(), roles };
    }
  } catch (e) {
    await session.request('DELETE', `${appCreds}/${encodeURIComponent(app.id)}`, { accept: [204, 404] });
    throw e;
  }
  // refused: the application credential is of no use, and must not linger
  await session.request('DELETE', `${appCreds}/${encodeURIComponent(app.id)}`, { accept: [204, 404] });
  const unbound = await projectEc2Credentials(session, login.authUrl);
  return { kind: 'unbound', ...unbound, reason: 'Keystone refuses credentials to application-credential tokens (HTTP 403), so the EC2 credential cannot be bound to an expiring, restricted one' };
}
