/**
 * A minimal OpenStack REST client for the workload-cluster e2e suite (Keystone v3 password or
 * application-credential auth, then plain GET/POST/DELETE against the catalog endpoints). Tokens
 * and secrets never appear in error messages.
 */
import * as fs from 'fs';
import { parse } from 'yaml';
import { login, withToken } from './keystone';

export interface CloudEntry {
  readonly authUrl: string;
  readonly region: string;
  readonly interface: string;
  readonly auth: Record<string, string>;
}

/** An entry of a clouds.yaml (password auth as written by scripts/local-cloud, or application credential). */
export function cloudEntry(cloudsYamlText: string, cloud: string, what: string): CloudEntry {
  const doc = parse(cloudsYamlText) as { clouds?: Record<string, { auth?: Record<string, string>; region_name?: string; interface?: string }> };
  const c = doc?.clouds?.[cloud];
  if (!c?.auth?.auth_url) throw new Error(`${what} has no cloud "${cloud}" with auth.auth_url`);
  return { authUrl: c.auth.auth_url.replace(/\/+$/, ''), region: c.region_name ?? 'RegionOne', interface: c.interface ?? 'public', auth: c.auth };
}

export function cloudEntryFromFile(file: string, cloud: string): CloudEntry {
  return cloudEntry(fs.readFileSync(file, 'utf8'), cloud, file);
}

interface CatalogEntry {
  type: string;
  endpoints: { interface: string; region_id?: string; region?: string; url: string }[];
}

export interface OsResponse {
  readonly status: number;
  readonly body: any;
}

export class OpenStackSession {
  private constructor(
    private readonly token: string,
    readonly userId: string,
    readonly projectId: string,
    private readonly catalog: CatalogEntry[],
    private readonly entry: CloudEntry,
  ) {}

  /** Authenticates with the entry's password or application credential (the project's one login). */
  static async login(entry: CloudEntry): Promise<OpenStackSession> {
    const a = entry.auth;
    const result = await login({
      authUrl: entry.authUrl,
      username: a.username,
      password: a.password,
      projectName: a.project_name,
      userDomainName: a.user_domain_name,
      projectDomainName: a.project_domain_name,
      applicationCredentialId: a.application_credential_id,
      applicationCredentialSecret: a.application_credential_secret,
    });
    return new OpenStackSession(result.token, result.userId, result.projectId, result.catalog as CatalogEntry[], entry);
  }

  endpoint(type: string): string {
    const svc = this.catalog.find((c) => c.type === type);
    const ep = svc?.endpoints.find((e) => e.interface === this.entry.interface && (e.region_id ?? e.region) === this.entry.region) ?? svc?.endpoints[0];
    if (!ep) throw new Error(`no ${type} endpoint in the catalog`);
    const url = ep.url.replace(/\/+$/, '');
    // identity paths here start with /v3; catalogs list Keystone with or without it
    return type === 'identity' ? url.replace(/\/v3$/, '') : url;
  }

  async request(method: string, type: string, path: string, body?: unknown): Promise<OsResponse> {
    const res = await withToken(this.token, method, `${this.endpoint(type)}${path}`, { body });
    return { status: res.status, body: res.body };
  }

  async get(type: string, path: string): Promise<any> {
    const r = await this.request('GET', type, path);
    if (r.status !== 200) throw new Error(`GET ${type} ${path}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body;
  }

  // ---- what the suite looks at -------------------------------------------------------------

  async applicationCredentials(name: string): Promise<{ id: string; name: string; unrestricted: boolean; expires_at: string | null; roles: { name: string }[] }[]> {
    const body = await this.get('identity', `/v3/users/${this.userId}/application_credentials?name=${encodeURIComponent(name)}`);
    return body.application_credentials;
  }

  async floatingIps(query: string): Promise<{ id: string; floating_ip_address: string; description: string; port_id: string | null }[]> {
    return (await this.get('network', `/v2.0/floatingips?${query}`)).floatingips;
  }

  /** Server groups of the project (with the policy list of the base microversion). */
  async serverGroups(): Promise<{ id: string; name: string; policies: string[] }[]> {
    return (await this.get('compute', '/os-server-groups')).server_groups;
  }

  async deleteIfPresent(type: string, path: string): Promise<number> {
    const r = await this.request('DELETE', type, path);
    if (![202, 204, 404].includes(r.status)) throw new Error(`DELETE ${type} ${path}: HTTP ${r.status}`);
    return r.status;
  }
}
