/**
 * An OpenStack API session for the cleanup: Keystone v3 login (application credential, or password
 * with a project scope, as in clouds.yaml), endpoint
 * lookup in the token's service catalog (by service type, interface and region), JSON requests
 * with one re-login on an expired token, and listings that follow the APIs' `*_links` pages.
 *
 * Tokens and secrets never appear in messages: errors name the method, the URL and the status.
 */
import { HttpResponse, HttpTransportError, httpRequest } from './http';

/** A user by id, or by name in a domain (id or name; `Default` when neither is given). */
export interface UserRef {
  readonly id?: string;
  readonly name?: string;
  readonly domainId?: string;
  readonly domainName?: string;
}

/** A project by id, or by name in a domain (id or name; `Default` when neither is given). */
export type ProjectRef = UserRef;

export type OpenStackAuth =
  | {
      readonly type: 'application_credential';
      /** The credential's id, or its name together with `user`. */
      readonly id?: string;
      readonly name?: string;
      readonly user?: UserRef;
      readonly secret: string;
    }
  | { readonly type: 'password'; readonly user: UserRef; readonly password: string; readonly project: ProjectRef };

export interface OpenStackCredentials {
  /** Keystone URL, with or without the trailing `/v3`. */
  readonly authUrl: string;
  readonly auth: OpenStackAuth;
  /** Region of the endpoints. @default - any region (several in the catalog is an error) */
  readonly region?: string;
  /** `public`, `internal` or `admin` (`publicURL` etc. accepted). @default 'public' */
  readonly endpointInterface?: string;
  /** PEM of the CA the API certificates chain to. @default the system trust store */
  readonly caPem?: string;
  /** Skip TLS certificate verification (clouds.yaml `verify: false`). @default false */
  readonly insecure?: boolean;
  /** Bound of each request. @default 30000 */
  readonly requestTimeoutMs?: number;
}

/** Who logs in, for messages: never a secret. */
export function describeAuth(auth: OpenStackAuth): string {
  const who = (u: UserRef | undefined): string => (u ? (u.id ? `user ${u.id}` : `user ${u.name} (domain ${u.domainId ?? u.domainName ?? 'Default'})`) : '');
  if (auth.type === 'application_credential') return `application credential ${auth.id ?? `${auth.name} of ${who(auth.user)}`}`;
  const project = auth.project.id ? `project ${auth.project.id}` : `project ${auth.project.name} (domain ${auth.project.domainId ?? auth.project.domainName ?? 'Default'})`;
  return `${who(auth.user)}, ${project}`;
}

/** An API answered with an unexpected status, or did not answer. */
export class OpenStackApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ApiResponse<T = any> {
  readonly status: number;
  readonly body: T;
}

export interface CatalogEndpoint {
  readonly interface?: string;
  readonly region?: string;
  readonly region_id?: string;
  readonly url?: string;
}

export interface CatalogService {
  readonly type?: string;
  readonly endpoints?: readonly CatalogEndpoint[];
}

/** A project-scoped Keystone token with its catalog. */
export interface KeystoneLogin {
  readonly token: string;
  readonly projectId: string;
  readonly userId?: string;
  readonly catalog: readonly CatalogService[];
}

/** Pages followed at most per listing (a guard against a `next` link that loops). */
const MAX_PAGES = 1000;

export function keystoneV3Url(authUrl: string): string {
  const trimmed = authUrl.trim().replace(/\/+$/, '');
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

export function normalizeInterface(value: string | undefined): string {
  const v = (value ?? '').trim().toLowerCase().replace(/url$/, '');
  return v === '' ? 'public' : v;
}

export class OpenStackSession {
  private login: KeystoneLogin;

  private constructor(
    private readonly credentials: OpenStackCredentials,
    login: KeystoneLogin,
  ) {
    this.login = login;
  }

  /** Logs in; the error names who and Keystone's answer, never a secret. */
  static async login(credentials: OpenStackCredentials): Promise<OpenStackSession> {
    return new OpenStackSession(credentials, await keystoneLogin(credentials));
  }

  /** The project the token is scoped to: the only one the cleanup looks at. */
  get projectId(): string {
    return this.login.projectId;
  }

  /** The user the token belongs to (undefined only when Keystone did not say). */
  get userId(): string | undefined {
    return this.login.userId;
  }

  get interfaceName(): string {
    return normalizeInterface(this.credentials.endpointInterface);
  }

  /**
   * Base URL (no trailing slash) of the first of `types` the catalog lists with an endpoint of the
   * session's interface (and region, when one is set); undefined when none is listed. Without a
   * region, endpoints in several regions are an error: the cleanup must not guess.
   */
  endpoint(types: readonly string[]): { type: string; url: string } | undefined {
    const wanted = this.interfaceName;
    const region = this.credentials.region?.trim() || undefined;
    for (const type of types) {
      const candidates = this.login.catalog
        .filter((s) => s.type === type)
        .flatMap((s) => s.endpoints ?? [])
        .filter((e) => normalizeInterface(e.interface) === wanted && typeof e.url === 'string' && e.url !== '');
      const inRegion = region ? candidates.filter((e) => e.region_id === region || e.region === region) : candidates;
      if (inRegion.length === 0) continue;
      const regions = [...new Set(inRegion.map((e) => e.region_id ?? e.region ?? '-'))];
      if (!region && regions.length > 1) {
        throw new OpenStackApiError(`the catalog lists ${wanted} ${type} endpoints in several regions (${regions.join(', ')}): give the region`);
      }
      return { type, url: inRegion[0].url!.replace(/\/+$/, '') };
    }
    return undefined;
  }

  /** What the catalog has, for messages: `type (interfaces in regions)`. */
  describeCatalog(): string {
    return (
      this.login.catalog
        .map((s) => `${s.type}[${[...new Set((s.endpoints ?? []).map((e) => `${normalizeInterface(e.interface)}@${e.region_id ?? e.region ?? '-'}`))].join(',')}]`)
        .join(' ') || 'empty'
    );
  }

  /**
   * A JSON request. Statuses in `accept` are returned; any other is an error naming the method,
   * URL, status and the start of the answer. A 401 logs in again once (the token expired).
   */
  async request<T = any>(method: string, url: string, options: { body?: unknown; accept?: readonly number[]; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    const accept = options.accept ?? [200];
    let res = await this.send(method, url, options.body, options.headers);
    if (res.status === 401) {
      this.login = await keystoneLogin(this.credentials);
      res = await this.send(method, url, options.body, options.headers);
    }
    if (!accept.includes(res.status)) {
      throw new OpenStackApiError(`${method} ${url}: HTTP ${res.status}${excerpt(res.text)}`, res.status);
    }
    let body: any = undefined;
    if (res.text.trim() !== '') {
      try {
        body = JSON.parse(res.text);
      } catch {
        throw new OpenStackApiError(`${method} ${url}: HTTP ${res.status} with a body that is not JSON${excerpt(res.text)}`, res.status);
      }
    }
    return { status: res.status, body: body as T };
  }

  /**
   * Every item of a collection: GET `url`, read `body[key]`, follow `body[key + '_links']` rel=next
   * (Neutron, Octavia, Cinder all page this way) until there is none.
   */
  async listAll<T = any>(url: string, key: string): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let next: string | undefined = url;
    for (let page = 0; next !== undefined; page++) {
      if (page >= MAX_PAGES || seen.has(next)) throw new OpenStackApiError(`GET ${url}: more than ${MAX_PAGES} pages or a looping next link (${next})`);
      seen.add(next);
      const res: ApiResponse = await this.request('GET', next);
      const batch = res.body?.[key];
      if (!Array.isArray(batch)) throw new OpenStackApiError(`GET ${next}: the answer has no "${key}" list`);
      items.push(...(batch as T[]));
      const links: unknown = res.body?.[`${key}_links`];
      const nextLink = Array.isArray(links) ? links.find((l) => l && l.rel === 'next' && typeof l.href === 'string') : undefined;
      next = nextLink && batch.length > 0 ? absolute(nextLink.href, next) : undefined;
    }
    return items;
  }

  private async send(method: string, url: string, body: unknown, headers: Record<string, string> | undefined): Promise<HttpResponse> {
    try {
      return await httpRequest({
        method,
        url,
        body,
        headers: { 'x-auth-token': this.login.token, ...headers },
        timeoutMs: this.credentials.requestTimeoutMs ?? 30_000,
        caPem: this.credentials.caPem,
        insecure: this.credentials.insecure,
      });
    } catch (e) {
      if (e instanceof HttpTransportError) throw new OpenStackApiError(e.message);
      throw e;
    }
  }
}

function identityBody(auth: OpenStackAuth): unknown {
  const domain = (r: UserRef) => (r.domainId ? { id: r.domainId } : { name: r.domainName ?? 'Default' });
  const user = (u: UserRef) => (u.id ? { id: u.id } : { name: u.name, domain: domain(u) });
  if (auth.type === 'application_credential') {
    const credential = auth.id ? { id: auth.id, secret: auth.secret } : { name: auth.name, user: user(auth.user ?? {}), secret: auth.secret };
    // an application credential is scoped to its project already
    return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
  }
  const project = auth.project.id ? { id: auth.project.id } : { name: auth.project.name, domain: domain(auth.project) };
  return { auth: { identity: { methods: ['password'], password: { user: { ...user(auth.user), password: auth.password } } }, scope: { project } } };
}

/** The one Keystone v3 login of the project (runtime and e2e support): errors name who and Keystone's answer, never a secret. */
export async function keystoneLogin(credentials: OpenStackCredentials): Promise<KeystoneLogin> {
  const url = `${keystoneV3Url(credentials.authUrl)}/auth/tokens`;
  const who = describeAuth(credentials.auth);
  let res: HttpResponse;
  try {
    res = await httpRequest({
      method: 'POST',
      url,
      body: identityBody(credentials.auth),
      timeoutMs: credentials.requestTimeoutMs ?? 30_000,
      caPem: credentials.caPem,
      insecure: credentials.insecure,
    });
  } catch (e) {
    throw new OpenStackApiError(`Keystone does not answer: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.status !== 201) {
    const hint = res.status === 401 ? (credentials.auth.type === 'application_credential' ? ' (unknown, expired or a wrong secret)' : ' (wrong user, password or project)') : '';
    throw new OpenStackApiError(`Keystone refused ${who}: POST ${url}: HTTP ${res.status}${hint}${excerpt(res.text)}`, res.status);
  }
  const header = res.headers['x-subject-token'];
  const token = Array.isArray(header) ? header[0] : header;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new OpenStackApiError(`POST ${url}: the token answer is not JSON`);
  }
  const projectId = body?.token?.project?.id;
  if (!token) throw new OpenStackApiError(`POST ${url}: Keystone returned no X-Subject-Token`);
  if (typeof projectId !== 'string') throw new OpenStackApiError(`POST ${url}: the token of ${who} is not scoped to a project`);
  return { token, projectId, userId: body?.token?.user?.id, catalog: Array.isArray(body.token.catalog) ? body.token.catalog : [] };
}

function absolute(href: string, base: string): string {
  return new URL(href, base).toString();
}

/** The start of an answer body for an error message, on one line. */
function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine === '' ? '' : `: ${oneLine.slice(0, 300)}`;
}
