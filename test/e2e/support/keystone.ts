/**
 * How the e2e suites log in and call the local cloud's APIs: the project's own Keystone login and
 * HTTP client (lib/runtime), so every suite authenticates one way. What the suites assert is still
 * their own: these only fetch.
 */
import { HttpResponse, httpRequest } from '../../../lib/runtime/http';
import { KeystoneLogin, OpenStackCredentials, keystoneLogin } from '../../../lib/runtime/openstack-session';

export type { CatalogService, KeystoneLogin } from '../../../lib/runtime/openstack-session';

/** A password entry of clouds.yaml, or an application credential. */
export interface LoginEntry {
  readonly authUrl: string;
  readonly username?: string;
  readonly password?: string;
  readonly projectName?: string;
  readonly userDomainName?: string;
  readonly projectDomainName?: string;
  readonly applicationCredentialId?: string;
  readonly applicationCredentialSecret?: string;
}

export function credentialsOf(entry: LoginEntry): OpenStackCredentials {
  if (entry.applicationCredentialId) {
    return { authUrl: entry.authUrl, auth: { type: 'application_credential', id: entry.applicationCredentialId, secret: entry.applicationCredentialSecret ?? '' } };
  }
  return {
    authUrl: entry.authUrl,
    auth: {
      type: 'password',
      user: { name: entry.username, domainName: entry.userDomainName ?? 'Default' },
      password: entry.password ?? '',
      project: { name: entry.projectName, domainName: entry.projectDomainName ?? 'Default' },
    },
  };
}

/** Logs in; the token, project, user and catalog of the entry. */
export async function login(entry: LoginEntry): Promise<KeystoneLogin & { readonly userId: string }> {
  const result = await keystoneLogin(credentialsOf(entry));
  if (!result.userId) throw new Error(`Keystone at ${entry.authUrl} returned a token without a user`);
  return { ...result, userId: result.userId };
}

export interface TokenResponse extends HttpResponse {
  /** The body parsed as JSON, else the text (undefined when empty). */
  readonly body: any;
}

/** One API call with the token: JSON in and out, bounded (30 s unless given). */
export async function withToken(token: string, method: string, url: string, options: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number; contentType?: string } = {}): Promise<TokenResponse> {
  const res = await httpRequest({ method, url, body: options.body, headers: { 'x-auth-token': token, ...options.headers }, contentType: options.contentType, timeoutMs: options.timeoutMs ?? 30_000 });
  let body: unknown = res.text === '' ? undefined : res.text;
  try {
    body = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    // keep the text
  }
  return { ...res, body };
}
