/**
 * A fake OpenStack API on 127.0.0.1 for the cleanup client's request/response handling: Keystone
 * application-credential tokens with a catalog, and the few Octavia / Neutron / Cinder calls the
 * cleanup makes, with pagination (`*_links` next), project scoping, slow deletes and injected
 * errors. It is deliberately small: the real APIs are exercised by the e2e suite.
 */
import * as http from 'http';
import * as https from 'https';
import { AddressInfo } from 'net';

export const PROJECT = 'p-mine';
export const OTHER_PROJECT = 'p-other';
export const CREDENTIAL_ID = 'ac-1';
export const CREDENTIAL_SECRET = 'very-secret-value-1234';
export const CREDENTIAL_NAME = 'cluster-credential';
export const USER = { id: 'u-1', name: 'operator', password: 'operator-password-42', project: 'proj' };

export interface FakeOptions {
  /** Catalog services to offer. @default all */
  readonly services?: readonly ('load-balancer' | 'network' | 'block-storage' | 'volumev3')[];
  /** Region of every endpoint. @default 'RegionOne' */
  readonly region?: string;
  /** Items per listing page. @default 2 */
  readonly pageSize?: number;
  /** Listings ignore `project_id` (what an admin token sees). @default false */
  readonly adminView?: boolean;
  /** TLS key/cert: serve HTTPS. */
  readonly tls?: { readonly keyPem: string; readonly certPem: string };
}

export type Item = Record<string, any>;

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly token?: string;
  readonly body?: any;
}

interface Injected {
  readonly method: string;
  readonly path: RegExp;
  readonly status: number;
  remaining: number;
}

export class FakeOpenStack {
  readonly loadbalancers: Item[] = [];
  readonly floatingips: Item[] = [];
  readonly securityGroups: Item[] = [];
  readonly networks: Item[] = [];
  readonly ports: Item[] = [];
  readonly volumes: Item[] = [];
  readonly snapshots: Item[] = [];
  readonly requests: RequestRecord[] = [];
  /** GETs of a deleting load balancer / volume / snapshot before it disappears. */
  deletePolls = 1;
  /** Called before each request is handled (tests move states forward here). */
  onRequest: (record: RequestRecord) => void = () => undefined;
  private readonly tokens = new Set<string>();
  private readonly injected: Injected[] = [];
  private readonly pendingPolls = new Map<string, number>();
  private tokenCount = 0;

  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
    private readonly options: FakeOptions,
  ) {}

  static async start(options: FakeOptions = {}): Promise<FakeOpenStack> {
    let fake: FakeOpenStack | undefined;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => fake!.handle(req, Buffer.concat(chunks).toString('utf8'), res));
    };
    const server = options.tls ? https.createServer({ key: options.tls.keyPem, cert: options.tls.certPem }, handler) : http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    fake = new FakeOpenStack(server, `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, options);
    return fake;
  }

  get authUrl(): string {
    return `${this.baseUrl}/identity/v3`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections?.();
      this.server.close(() => resolve());
    });
  }

  /** Every token issued so far stops working (the client must log in again). */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** The next `times` requests matching method + path get `status`. */
  inject(method: string, path: RegExp, status: number, times = 1): void {
    this.injected.push({ method, path, status, remaining: times });
  }

  /** Requests that changed something, as `METHOD path`. */
  mutations(): string[] {
    return this.requests.filter((r) => r.method !== 'GET' && !r.path.includes('/auth/tokens')).map((r) => `${r.method} ${r.path}`);
  }

  private catalog(): any[] {
    const region = this.options.region ?? 'RegionOne';
    const all = this.options.services ?? ['load-balancer', 'network', 'block-storage'];
    const url: Record<string, string> = {
      identity: `${this.baseUrl}/identity/v3/`,
      'load-balancer': `${this.baseUrl}/lb/`,
      network: `${this.baseUrl}/net/`,
      'block-storage': `${this.baseUrl}/vol/v3/${PROJECT}`,
      volumev3: `${this.baseUrl}/vol/v3/${PROJECT}`,
    };
    return ['identity', ...all].map((type) => ({
      type,
      endpoints: [
        // an internal endpoint first, and one in another region: the client must pick by interface and region
        { interface: 'internal', region_id: region, region, url: `${this.baseUrl}/wrong-interface/` },
        { interface: 'public', region_id: 'OtherRegion', region: 'OtherRegion', url: `${this.baseUrl}/wrong-region/` },
        { interface: 'public', region_id: region, region, url: url[type] },
      ],
    }));
  }

  private handle(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const method = req.method ?? 'GET';
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const token = req.headers['x-auth-token'] as string | undefined;
    const record: RequestRecord = { method, path: url.pathname + url.search, token, body };
    this.requests.push(record);
    this.onRequest(record);
    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const hit = this.injected.find((i) => i.remaining > 0 && i.method === method && i.path.test(url.pathname));
    if (hit) {
      hit.remaining -= 1;
      send(hit.status, { error: `injected ${hit.status}` });
      return;
    }
    if (url.pathname === '/identity/v3/auth/tokens' && method === 'POST') {
      if (!this.acceptLogin(body?.auth)) {
        send(401, { error: { code: 401, message: 'The request you have made requires authentication.' } });
        return;
      }
      const issued = `tok-${++this.tokenCount}`;
      this.tokens.add(issued);
      send(201, { token: { project: { id: PROJECT }, catalog: this.catalog() } }, { 'x-subject-token': issued });
      return;
    }
    if (!token || !this.tokens.has(token)) {
      send(401, { error: { code: 401, message: 'token expired' } });
      return;
    }
    const route = this.route(method, url);
    if (!route) {
      send(404, { error: `no route ${method} ${url.pathname}` });
      return;
    }
    const [status, payload] = route;
    send(status, payload);
  }

  /** Application credential by id or by name + user; password of USER scoped to its project (names in domain Default). */
  private acceptLogin(auth: any): boolean {
    const identity = auth?.identity ?? {};
    const inDefault = (x: any) => x?.domain?.name === 'Default' || x?.domain?.id === 'default';
    if (identity.methods?.length === 1 && identity.methods[0] === 'application_credential') {
      const ac = identity.application_credential ?? {};
      const byId = ac.id === CREDENTIAL_ID;
      const byName = ac.name === CREDENTIAL_NAME && (ac.user?.id === USER.id || (ac.user?.name === USER.name && inDefault(ac.user)));
      return (byId || byName) && ac.secret === CREDENTIAL_SECRET && auth.scope === undefined;
    }
    if (identity.methods?.length === 1 && identity.methods[0] === 'password') {
      const u = identity.password?.user ?? {};
      const userOk = u.id === USER.id || (u.name === USER.name && inDefault(u));
      const p = auth.scope?.project ?? {};
      const projectOk = p.id === PROJECT || (p.name === USER.project && inDefault(p));
      return userOk && u.password === USER.password && projectOk;
    }
    return false;
  }

  /** Pages by `marker` (the last id seen) and `limit`, with a `<key>_links` next link like the real APIs. */
  private page(items: Item[], url: URL, key: string): [number, unknown] {
    const projectFilter = url.searchParams.get('project_id');
    let visible = items;
    if (projectFilter && !this.options.adminView) visible = visible.filter((i) => (i.project_id ?? i.tenant_id ?? PROJECT) === projectFilter);
    for (const [param, value] of url.searchParams) {
      if (['project_id', 'marker', 'limit'].includes(param)) continue;
      visible = visible.filter((i) => String(i[param]) === value);
    }
    const size = Number(url.searchParams.get('limit') ?? this.options.pageSize ?? 2);
    const marker = url.searchParams.get('marker');
    const start = marker ? visible.findIndex((i) => i.id === marker) + 1 : 0;
    const slice = visible.slice(start, start + size);
    const links = [];
    if (start + size < visible.length) {
      const next = new URL(url.toString());
      next.searchParams.set('marker', slice[slice.length - 1].id);
      next.searchParams.set('limit', String(size));
      links.push({ rel: 'next', href: next.toString() });
    }
    return [200, { [key]: slice, [`${key}_links`]: links }];
  }

  /** A deleting resource disappears after `deletePolls` GETs. */
  private pollDeleting(list: Item[], item: Item): boolean {
    const left = (this.pendingPolls.get(item.id) ?? this.deletePolls) - 1;
    this.pendingPolls.set(item.id, left);
    if (left >= 0) return false;
    list.splice(list.indexOf(item), 1);
    return true;
  }

  private route(method: string, url: URL): [number, unknown] | undefined {
    const p = url.pathname;
    let m: RegExpExecArray | null;
    // Octavia
    if (p === '/lb/v2/lbaas/loadbalancers' && method === 'GET') return this.page(this.loadbalancers, url, 'loadbalancers');
    if ((m = /^\/lb\/v2\/lbaas\/loadbalancers\/([^/]+)$/.exec(p))) {
      const lb = this.loadbalancers.find((l) => l.id === m![1]);
      if (!lb) return [404, { faultstring: 'not found' }];
      if (method === 'GET') {
        if (lb.provisioning_status === 'PENDING_DELETE' && this.pollDeleting(this.loadbalancers, lb)) return [404, { faultstring: 'not found' }];
        return [200, { loadbalancer: lb }];
      }
      if (method === 'DELETE') {
        if (url.searchParams.get('cascade') !== 'true') return [400, { faultstring: 'has children; use cascade' }];
        if (String(lb.provisioning_status).startsWith('PENDING_')) return [409, { faultstring: `Invalid state ${lb.provisioning_status}` }];
        lb.provisioning_status = 'PENDING_DELETE';
        return [204, undefined];
      }
    }
    // Neutron
    const neutron: Record<string, [Item[], string]> = {
      floatingips: [this.floatingips, 'floatingips'],
      'security-groups': [this.securityGroups, 'security_groups'],
      networks: [this.networks, 'networks'],
      ports: [this.ports, 'ports'],
    };
    if ((m = /^\/net\/v2\.0\/([a-z-]+)(?:\/([^/]+))?$/.exec(p)) && neutron[m[1]]) {
      const [list, key] = neutron[m[1]];
      if (!m[2] && method === 'GET') return this.page(list, url, key);
      const item = list.find((i) => i.id === m![2]);
      if (!item) return [404, { NeutronError: { type: 'NotFound' } }];
      if (method === 'GET') return [200, { [key.replace(/s$/, '')]: item }];
      if (method === 'DELETE') {
        if (item.inUse) return [409, { NeutronError: { type: 'SecurityGroupInUse' } }];
        list.splice(list.indexOf(item), 1);
        return [204, undefined];
      }
    }
    // Cinder
    const vol = `/vol/v3/${PROJECT}`;
    if (p === `${vol}/volumes/detail` && method === 'GET') return this.page(this.volumes, url, 'volumes');
    if ((p === `${vol}/snapshots/detail` || p === `${vol}/snapshots`) && method === 'GET') return this.page(this.snapshots, url, 'snapshots');
    if ((m = new RegExp(`^${vol}/(volumes|snapshots)/([^/]+)$`).exec(p))) {
      const list = m[1] === 'volumes' ? this.volumes : this.snapshots;
      const key = m[1] === 'volumes' ? 'volume' : 'snapshot';
      const item = list.find((i) => i.id === m![2]);
      if (!item) return [404, { itemNotFound: { code: 404 } }];
      if (method === 'GET') {
        if (item.status === 'deleting' && this.pollDeleting(list, item)) return [404, { itemNotFound: { code: 404 } }];
        return [200, { [key]: item }];
      }
      if (method === 'DELETE') {
        if (!['available', 'error'].includes(item.status)) return [400, { badRequest: { message: `Invalid ${key}: status must be available or error` } }];
        if (key === 'volume' && this.snapshots.some((s) => s.volume_id === item.id)) return [400, { badRequest: { message: 'Volume still has dependent snapshots' } }];
        item.status = 'deleting';
        return [202, undefined];
      }
    }
    return undefined;
  }
}
