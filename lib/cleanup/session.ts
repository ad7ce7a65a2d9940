/**
 * An OpenStack API session for the cleanup: Keystone v3 application-credential login, endpoint
 * lookup in the token's service catalog (by service type, interface and region), JSON requests
 * with one re-login on an expired token, and listings that follow the APIs' `*_links` pages.
 *
 * Tokens and secrets never appear in messages: errors name the method, the URL and the status.
 */
import { HttpResponse, HttpTransportError, httpRequest } from './http';

export interface OpenStackCredentials {
  /** Keystone URL, with or without the trailing `/v3`. */
  readonly authUrl: string;
  readonly applicationCredentialId: string;
  readonly applicationCredentialSecret: string;
  /** Region of the endpoints. @default - the first endpoint of the interface, any region */
  readonly region?: string;
  /** `public`, `internal` or `admin` (`publicURL` etc. accepted). @default 'public' */
  readonly endpointInterface?: string;
  /** PEM of the CA the API certificates chain to. @default the system trust store */
  readonly caPem?: string;
  /** Bound of each request. @default 30000 */
  readonly requestTimeoutMs?: number;
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

interface CatalogEndpoint {
  readonly interface?: string;
  readonly region?: string;
  readonly region_id?: string;
  readonly url?: string;
}

interface CatalogService {
  readonly type?: string;
  readonly endpoints?: readonly CatalogEndpoint[];
}

interface Login {
  readonly token: string;
  readonly projectId: string;
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
  private login: Login;

  private constructor(
    private readonly credentials: OpenStackCredentials,
    login: Login,
  ) {
    this.login = login;
  }

  /** Logs in with the application credential; the error names Keystone's answer, never the secret. */
  static async login(credentials: OpenStackCredentials): Promise<OpenStackSession> {
    return new OpenStackSession(credentials, await authenticate(credentials));
  }

  /** The project the application credential belongs to. */
  get projectId(): string {
    return this.login.projectId;
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
      this.login = await authenticate(this.credentials);
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
      });
    } catch (e) {
      if (e instanceof HttpTransportError) throw new OpenStackApiError(e.message);
      throw e;
    }
  }
}

async function authenticate(credentials: OpenStackCredentials): Promise<Login> {
  const url = `${keystoneV3Url(credentials.authUrl)}/auth/tokens`;
  let res: HttpResponse;
  try {
    res = await httpRequest({
      method: 'POST',
      url,
      body: {
        auth: {
          identity: {
            methods: ['application_credential'],
            application_credential: { id: credentials.applicationCredentialId, secret: credentials.applicationCredentialSecret },
          },
        },
      },
      timeoutMs: credentials.requestTimeoutMs ?? 30_000,
      caPem: credentials.caPem,
    });
  } catch (e) {
    throw new OpenStackApiError(`Keystone does not answer: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.status !== 201) {
    const hint = res.status === 401 ? ' (application credential unknown, expired or with a wrong secret)' : '';
    throw new OpenStackApiError(
      `Keystone refused application credential ${credentials.applicationCredentialId}: POST ${url}: HTTP ${res.status}${hint}${excerpt(res.text)}`,
      res.status,
    );
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
  if (typeof projectId !== 'string') throw new OpenStackApiError(`POST ${url}: the token is not scoped to a project (application credentials always are; is this Keystone v3?)`);
  return { token, projectId, catalog: Array.isArray(body.token.catalog) ? body.token.catalog : [] };
}

function absolute(href: string, base: string): string {
  return new URL(href, base).toString();
}

/** The start of an answer body for an error message, on one line. */
function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine === '' ? '' : `: ${oneLine.slice(0, 300)}`;
}
