/**
 * A small OpenStack REST client for e2e assertions: password login against Keystone v3 with an
 * entry of clouds.yaml, endpoint lookup in the token's catalog, JSON GETs, and full listings of
 * every resource type a project can own (for before/after comparisons).
 *
 * It logs in and fetches with the project's own login and HTTP client (test/e2e/support/keystone.ts);
 * what the suites compare and assert is their own.
 */
import { login, withToken } from './keystone';
import { PasswordCloud, readPasswordCloud } from './local-cloud-probe';

/** A password entry of clouds.yaml, with its name. */
export interface CloudEntry extends PasswordCloud {
  readonly name: string;
}

/** A password-auth entry of a clouds.yaml file (read like every suite reads it). */
export function readCloudEntry(file: string, cloud: string): CloudEntry {
  return { name: cloud, ...readPasswordCloud(file, cloud) };
}

export class OpenStackApiError extends Error {
  constructor(
    message: string,
    public readonly status?: number,
  ) {
    super(message);
  }
}

interface CatalogEntry {
  readonly type: string;
  readonly endpoints: { readonly interface: string; readonly region?: string; readonly region_id?: string; readonly url: string }[];
}

export class OpenStackApi {
  private constructor(
    private readonly cloud: CloudEntry,
    private readonly token: string,
    private readonly catalog: CatalogEntry[],
    public readonly userId: string,
    public readonly projectId: string,
  ) {}

  /** Logs in (the project's one login); the error names the cloud and Keystone's answer. */
  static async login(cloud: CloudEntry): Promise<OpenStackApi> {
    try {
      const result = await login(cloud);
      return new OpenStackApi(cloud, result.token, result.catalog as CatalogEntry[], result.userId, result.projectId);
    } catch (err) {
      throw new OpenStackApiError(`cloud ${cloud.name}: ${(err as Error).message}`, (err as { status?: number }).status);
    }
  }

  hasService(type: string): boolean {
    return this.catalog.some((s) => s.type === type);
  }

  /** Endpoint URL of a service type in the cloud's region and interface, without a trailing slash. */
  endpoint(type: string): string {
    const service = this.catalog.find((s) => s.type === type);
    const endpoint = service?.endpoints.find(
      (e) => e.interface === this.cloud.interface && (!this.cloud.region || (e.region ?? e.region_id) === this.cloud.region),
    );
    if (!endpoint) throw new OpenStackApiError(`cloud ${this.cloud.name}: no ${this.cloud.interface} endpoint of type ${type} in the catalog`);
    return endpoint.url.replace(/\/+$/, '');
  }

  /** GET <endpoint of type><path> as JSON; 404 gives undefined when `allow404`. */
  async get<T = any>(type: string, path: string, options: { headers?: Record<string, string>; allow404?: boolean } = {}): Promise<T> {
    const url = `${this.endpoint(type)}${path}`;
    let res;
    try {
      res = await withToken(this.token, 'GET', url, { headers: options.headers });
    } catch (err) {
      throw new OpenStackApiError(`GET ${url}: ${(err as Error).message}`);
    }
    if (res.status === 404 && options.allow404) return undefined as T;
    if (res.status < 200 || res.status >= 300) throw new OpenStackApiError(`GET ${url}: HTTP ${res.status}: ${res.text.slice(0, 300)}`, res.status);
    return res.body as T;
  }

  /** Networking API (`/v2.0/...`). */
  network<T = any>(path: string): Promise<T> {
    return this.get<T>('network', `/v2.0${path}`);
  }

  /** Compute API with an optional microversion. */
  compute<T = any>(path: string, microversion?: string): Promise<T> {
    return this.get<T>('compute', path, microversion ? { headers: { 'openstack-api-version': `compute ${microversion}`, 'x-openstack-nova-api-version': microversion } } : {});
  }

  /** Identity API (the auth URL is the v3 root). */
  identity<T = any>(path: string): Promise<T> {
    return this.get<T>('identity', path);
  }
}

/** One resource in a listing: `<type> <id> <name>`, stable across listings. */
export type ListingEntry = string;

/** The entries whose name starts with `name`, as `<type> <name>` (ids differ between runs), sorted. */
export function entriesNamed(listing: readonly ListingEntry[], name: string): string[] {
  return listing
    .map((e) => e.split(' '))
    .filter((parts) => parts.slice(2).join(' ').startsWith(name))
    .map((parts) => `${parts[0]} ${parts.slice(2).join(' ')}`)
    .sort();
}

/**
 * Every resource type the project can own, each listed in full (ids and names). Networks, subnets
 * and security groups visible to the project (shared/external ones too) are included; they are
 * the same before and after, so they do not disturb a comparison.
 */
export async function listProjectResources(api: OpenStackApi): Promise<ListingEntry[]> {
  const entries: ListingEntry[] = [];
  const add = (type: string, items: any[] | undefined, name: (item: any) => string = (i) => i.name ?? '') => {
    for (const item of items ?? []) entries.push(`${type} ${item.id} ${name(item)}`.trimEnd());
  };
  const [networks, subnets, routers, ports, floatingIps, groups, rules, trunks] = await Promise.all([
    api.network('/networks'),
    api.network('/subnets'),
    api.network('/routers'),
    api.network('/ports'),
    api.network('/floatingips'),
    api.network('/security-groups'),
    api.network('/security-group-rules'),
    api.get('network', '/v2.0/trunks', { allow404: true }),
  ]);
  add('network', networks.networks);
  add('subnet', subnets.subnets, (s) => `${s.name} ${s.cidr}`);
  add('router', routers.routers);
  add('port', ports.ports, (p) => `${p.name} ${p.device_owner}`);
  add('floatingip', floatingIps.floatingips, (f) => f.floating_ip_address);
  add('security-group', groups.security_groups);
  add('security-group-rule', rules.security_group_rules, (r) => `${r.security_group_id} ${r.direction} ${r.ethertype} ${r.protocol ?? 'any'} ${r.port_range_min ?? ''}-${r.port_range_max ?? ''} ${r.remote_ip_prefix ?? ''}`);
  add('trunk', trunks?.trunks);

  const [servers, keypairs, serverGroups] = await Promise.all([api.compute('/servers/detail?all_tenants=0'), api.compute('/os-keypairs'), api.compute('/os-server-groups')]);
  add('server', servers.servers);
  add('keypair', (keypairs.keypairs ?? []).map((k: any) => ({ id: k.keypair.name, name: k.keypair.fingerprint })));
  add('server-group', serverGroups.server_groups);

  if (api.hasService('volumev3') || api.hasService('block-storage')) {
    const type = api.hasService('volumev3') ? 'volumev3' : 'block-storage';
    const [volumes, snapshots] = await Promise.all([api.get(type, '/volumes/detail'), api.get(type, '/snapshots')]);
    add('volume', volumes.volumes, (v) => `${v.name ?? ''} ${v.size}GB`);
    add('volume-snapshot', snapshots.snapshots);
  }

  const images = await api.get('image', `/v2/images?owner=${api.projectId}&limit=1000`);
  add('image', images.images);

  const credentials = await api.identity(`/users/${api.userId}/application_credentials`);
  add('application-credential', credentials.application_credentials);
  return entries.sort();
}

export interface ListingDiff {
  readonly added: ListingEntry[];
  readonly removed: ListingEntry[];
}

export function diffListings(before: readonly ListingEntry[], after: readonly ListingEntry[]): ListingDiff {
  const b = new Set(before);
  const a = new Set(after);
  return { added: after.filter((e) => !b.has(e)), removed: before.filter((e) => !a.has(e)) };
}

export function formatDiff(diff: ListingDiff): string {
  if (diff.added.length === 0 && diff.removed.length === 0) return '  (no difference)';
  return [...diff.added.map((e) => `  + ${e}`), ...diff.removed.map((e) => `  - ${e}`)].join('\n');
}
