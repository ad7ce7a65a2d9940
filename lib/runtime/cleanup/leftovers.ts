/**
 * Deletes what a workload cluster's controllers left in OpenStack once the cluster is going away:
 * OCCM's Octavia load balancers (cascade), the floating IPs and security groups OCCM made for them,
 * and Cinder CSI's snapshots and volumes. Only resources provably the cluster's are touched (see
 * matchers.ts); listings are restricted to the credential's own project.
 *
 * Order: (optional) wait until no server of the project has a port on the cluster's network any
 * more, so nothing inside the cluster can re-create what is deleted; load balancers; floating IPs
 * (unattached, or attached to a deleted load balancer); security groups; snapshots; volumes. A
 * service missing from the catalog (no Octavia, no Cinder) is skipped with a line saying so.
 * Everything is bounded by one deadline; the result lists what was deleted, kept and failed.
 */
import { csiVerdict, occmFloatingIpVerdict, occmLoadBalancerVerdict, occmSecurityGroupVerdict, Verdict } from './matchers';
import { describeAuth, OpenStackApiError, OpenStackCredentials, OpenStackSession } from './session';


export interface CleanupOptions extends OpenStackCredentials {
  /** OCCM's `--cluster-name`. */
  readonly occmClusterName: string;
  /** Cinder CSI's `--cluster`. @default occmClusterName */
  readonly csiClusterName?: string;
  /**
   * Network whose servers must be gone before anything is deleted (CAPO's
   * `k8s-clusterapi-cluster-<namespace>-<cluster>`). @default - no wait
   */
  readonly machineNetworkName?: string;
  /** Delete Cinder CSI volumes and snapshots. @default true */
  readonly deleteVolumes?: boolean;
  /** List what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Bound of the whole run. */
  readonly timeoutMs: number;
  /** Between two looks at resources being deleted. @default 5000 */
  readonly pollIntervalMs?: number;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

export type ResourceKind = 'load balancer' | 'floating IP' | 'security group' | 'volume snapshot' | 'volume';

export interface ResourceRef {
  readonly kind: ResourceKind;
  readonly id: string;
  /** Name / address, for people. */
  readonly label: string;
}

export interface CleanupResult {
  readonly projectId: string;
  /** Deleted (or, in a dry run, to be deleted). */
  readonly deleted: readonly ResourceRef[];
  /** Looked like the cluster's but are left alone, with why. */
  readonly kept: readonly (ResourceRef & { readonly reason: string })[];
  /** Services not in the catalog, e.g. `load-balancer`. */
  readonly skippedServices: readonly string[];
  readonly seconds: number;
}

/** The cleanup could not finish; the message is one line naming what is left and why. */
export class CleanupError extends Error {}

const LOAD_BALANCER_TYPES = ['load-balancer'];
const NETWORK_TYPES = ['network'];
const VOLUME_TYPES = ['block-storage', 'volumev3'];

type StepResult = { state: 'gone' } | { state: 'waiting'; why: string } | { state: 'failed'; why: string };

interface Tracked extends ResourceRef {
  /** Looks at the resource and moves it towards deletion. */
  step(): Promise<StepResult>;
}

export async function cleanupClusterLeftovers(options: CleanupOptions): Promise<CleanupResult> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const log = (line: string): void => options.log(`cleanup: ${line}`);
  const csiName = options.csiClusterName ?? options.occmClusterName;
  const poll = options.pollIntervalMs ?? 5000;
  const deleted: ResourceRef[] = [];
  const kept: (ResourceRef & { reason: string })[] = [];
  const failures: string[] = [];
  const skippedServices: string[] = [];

  const session = await OpenStackSession.login(options);
  const project = session.projectId;
  const owned = (item: { project_id?: string; tenant_id?: string }): boolean => (item.project_id ?? item.tenant_id) === project;
  log(
    `cluster "${options.occmClusterName}"${csiName !== options.occmClusterName ? ` (Cinder CSI: "${csiName}")` : ''}, project ${project} as ${describeAuth(options.auth)}, ` +
      `interface ${session.interfaceName}${options.region ? `, region ${options.region}` : ''}, timeout ${Math.round(options.timeoutMs / 1000)} s${options.dryRun ? ', DRY RUN: nothing is deleted' : ''}`,
  );

  const service = (types: readonly string[], what: string): string | undefined => {
    const found = session.endpoint(types);
    if (!found) {
      skippedServices.push(types[0]);
      log(`${what}: no ${types.join(' / ')} endpoint (${session.interfaceName}${options.region ? `, ${options.region}` : ''}) in the catalog: skipped`);
    }
    return found?.url;
  };
  const network = service(NETWORK_TYPES, 'floating IPs and security groups');
  const neutron = network ? `${network.replace(/\/v2\.0$/, '')}/v2.0` : undefined;

  // 1. Nothing inside the cluster may still run.
  if (options.machineNetworkName) {
    if (!neutron) throw new CleanupError(`cannot check network ${options.machineNetworkName} for servers: no network endpoint in the catalog`);
    await waitForServersGone(session, neutron, options.machineNetworkName, { deadline, poll, log, dryRun: options.dryRun === true, owned });
  }

  const run = async (kind: ResourceKind, plural: string, items: Tracked[]): Promise<ResourceRef[]> => {
    if (items.length === 0) {
      log(`${plural}: none of the cluster's`);
      return [];
    }
    log(`${plural}: ${options.dryRun ? 'would delete' : 'deleting'} ${items.length}: ${items.map((i) => `${i.id} (${i.label})`).join(', ')}`);
    if (options.dryRun) {
      deleted.push(...items.map(ref));
      return items.map(ref);
    }
    const result = await converge(items, { deadline, poll, log: (l) => log(`${plural}: ${l}`), started });
    deleted.push(...result.gone.map(ref));
    failures.push(...result.failed.map((f) => `${kind} ${f.item.id} (${f.item.label}) ${f.why}`));
    if (result.gone.length > 0) log(`${plural}: deleted ${result.gone.length}`);
    return result.gone.map(ref);
  };
  const keep = (kind: ResourceKind, id: string, label: string, reason: string): void => {
    kept.push({ kind, id, label, reason });
    log(`${kind} ${id} (${label}) kept: ${reason}`);
  };
  const judge = <T extends { id: string }>(kind: ResourceKind, items: T[], verdict: (item: T) => Verdict, label: (item: T) => string): T[] =>
    items.filter((item) => {
      const v = verdict(item);
      if (!v.match && v.keptBecause) keep(kind, item.id, label(item), v.keptBecause);
      return v.match;
    });

  // 2. OCCM's load balancers.
  const lbApi = service(LOAD_BALANCER_TYPES, 'load balancers');
  // Addresses of the load balancers deleted (dry run: to be deleted): their floating IPs go too.
  const deletedVipPorts = new Set<string>();
  if (lbApi) {
    const octavia = `${lbApi.replace(/\/v2(\.0)?$/, '')}/v2/lbaas`;
    const all = (await session.listAll<any>(`${octavia}/loadbalancers?project_id=${encodeURIComponent(project)}`, 'loadbalancers')).filter(owned);
    const mine = judge('load balancer', all, (lb) => occmLoadBalancerVerdict(lb, options.occmClusterName), (lb) => lb.name ?? '');
    const gone = await run(
      'load balancer',
      'load balancers',
      mine.map((lb) => tracked('load balancer', lb.id, lb.name, () => stepLoadBalancer(session, `${octavia}/loadbalancers/${lb.id}`))),
    );
    for (const lb of mine) if (gone.some((g) => g.id === lb.id) && lb.vip_port_id) deletedVipPorts.add(lb.vip_port_id);
  }

  // 3. + 4. OCCM's floating IPs and security groups.
  if (neutron) {
    const fips = (await session.listAll<any>(`${neutron}/floatingips?project_id=${encodeURIComponent(project)}`, 'floatingips')).filter(owned);
    const fipLabel = (f: any): string => `${f.floating_ip_address}, ${f.description}`;
    const mine = judge('floating IP', fips, (f) => occmFloatingIpVerdict(f, options.occmClusterName), fipLabel).filter((f) => {
      if (!f.port_id || deletedVipPorts.has(f.port_id)) return true;
      keep('floating IP', f.id, fipLabel(f), `still associated with port ${f.port_id}, which is not the address of a deleted load balancer`);
      return false;
    });
    await run(
      'floating IP',
      'floating IPs',
      mine.map((f) => tracked('floating IP', f.id, f.floating_ip_address, () => stepSimpleDelete(session, `${neutron}/floatingips/${f.id}`))),
    );

    const groups = (await session.listAll<any>(`${neutron}/security-groups?project_id=${encodeURIComponent(project)}`, 'security_groups')).filter(owned);
    const mineGroups = judge('security group', groups, (g) => occmSecurityGroupVerdict(g, options.occmClusterName), (g) => g.name ?? '');
    await run(
      'security group',
      'security groups',
      mineGroups.map((g) => tracked('security group', g.id, g.name, () => stepSimpleDelete(session, `${neutron}/security-groups/${g.id}`))),
    );
  }

  // 5. + 6. Cinder CSI's snapshots, then volumes.
  if (options.deleteVolumes === false) {
    log(`volumes: kept (volume deletion turned off)`);
  } else {
    const volumeApi = service(VOLUME_TYPES, 'volumes and snapshots');
    if (volumeApi) {
      const snapshots = await session.listAll<any>(`${volumeApi}/snapshots/detail`, 'snapshots');
      const mineSnapshots = judge('volume snapshot', snapshots.filter(ownedVolume(project)), (s) => csiVerdict(s, csiName), (s) => s.name ?? '');
      await run(
        'volume snapshot',
        'volume snapshots',
        mineSnapshots.map((s) => tracked('volume snapshot', s.id, s.name ?? '', () => stepSnapshot(session, `${volumeApi}/snapshots/${s.id}`))),
      );
      const volumes = await session.listAll<any>(`${volumeApi}/volumes/detail`, 'volumes');
      const mineVolumes = judge('volume', volumes.filter(ownedVolume(project)), (v) => csiVerdict(v, csiName), (v) => v.name ?? '');
      await run(
        'volume',
        'volumes',
        mineVolumes.map((v) => tracked('volume', v.id, `${v.name ?? ''}, ${v.size} GiB`, () => stepVolume(session, volumeApi, v.id))),
      );
    }
  }

  const seconds = Math.round((Date.now() - started) / 1000);
  if (failures.length > 0) {
    const shown = failures.slice(0, 3).join('; ');
    throw new CleanupError(`${failures.length} of the cluster's resources could not be deleted within ${seconds} s: ${shown}${failures.length > 3 ? `; and ${failures.length - 3} more (see above)` : ''}`);
  }
  const count = (kind: ResourceKind): number => deleted.filter((d) => d.kind === kind).length;
  log(
    `${options.dryRun ? 'dry run done' : 'done'} in ${seconds} s: ${options.dryRun ? 'would delete' : 'deleted'} ${count('load balancer')} load balancer(s), ${count('floating IP')} floating IP(s), ` +
      `${count('security group')} security group(s), ${count('volume snapshot')} snapshot(s), ${count('volume')} volume(s)` +
      `${kept.length > 0 ? `; kept ${kept.length} that are not provably the cluster's (see above)` : ''}`,
  );
  return { projectId: project, deleted, kept, skippedServices, seconds };
}

function ref(item: ResourceRef): ResourceRef {
  return { kind: item.kind, id: item.id, label: item.label };
}

function tracked(kind: ResourceKind, id: string, label: string | undefined, step: () => Promise<StepResult>): Tracked {
  return { kind, id, label: label ?? '', step };
}

/** Cinder lists only the project's own volumes without all_tenants; the tenant attribute (admins see it) must agree. */
function ownedVolume(project: string): (item: any) => boolean {
  return (item) => {
    const owner = item['os-vol-tenant-attr:tenant_id'] ?? item['os-extended-snapshot-attributes:project_id'];
    return owner === undefined || owner === project;
  };
}

interface LoopContext {
  readonly deadline: number;
  readonly poll: number;
  readonly log: (line: string) => void;
  readonly started: number;
}

/** Steps every item until it is gone or failed, or the deadline passes; a waiting line every 30 s. */
async function converge(items: Tracked[], ctx: LoopContext): Promise<{ gone: Tracked[]; failed: { item: Tracked; why: string }[] }> {
  const gone: Tracked[] = [];
  const failed: { item: Tracked; why: string }[] = [];
  let pending = [...items];
  let lastReport = Date.now();
  const waiting = new Map<string, string>();
  while (pending.length > 0) {
    const still: Tracked[] = [];
    for (const item of pending) {
      let result: StepResult;
      try {
        result = await item.step();
      } catch (e) {
        if (!(e instanceof OpenStackApiError) || (e.status !== undefined && e.status < 500)) {
          result = { state: 'failed', why: e instanceof Error ? e.message : String(e) };
        } else {
          result = { state: 'waiting', why: `API trouble, retrying: ${e.message}` }; // 5xx / transport: retry until the deadline
        }
      }
      if (result.state === 'gone') gone.push(item);
      else if (result.state === 'failed') failed.push({ item, why: result.why });
      else {
        waiting.set(item.id, result.why);
        still.push(item);
      }
    }
    pending = still;
    if (pending.length === 0) break;
    if (Date.now() + ctx.poll > ctx.deadline) {
      for (const item of pending) failed.push({ item, why: `still ${waiting.get(item.id)} when the time ran out` });
      break;
    }
    if (Date.now() - lastReport >= 30_000) {
      lastReport = Date.now();
      ctx.log(`waiting for ${pending.length} (${Math.round((Date.now() - ctx.started) / 1000)} s): ${pending.map((p) => `${p.id} ${waiting.get(p.id)}`).join(', ')}`);
    }
    await sleep(ctx.poll);
  }
  return { gone, failed };
}

async function waitForServersGone(
  session: OpenStackSession,
  neutron: string,
  networkName: string,
  ctx: { deadline: number; poll: number; log: (line: string) => void; dryRun: boolean; owned: (item: any) => boolean },
): Promise<void> {
  const project = session.projectId;
  const networks = (await session.listAll<any>(`${neutron}/networks?name=${encodeURIComponent(networkName)}&project_id=${encodeURIComponent(project)}`, 'networks')).filter(
    (n) => n.name === networkName && ctx.owned(n),
  );
  if (networks.length === 0) {
    ctx.log(`network ${networkName} does not exist (any more): no server of the cluster is left`);
    return;
  }
  const started = Date.now();
  let lastReport = 0;
  for (;;) {
    const servers = new Set<string>();
    for (const net of networks) {
      const ports = await session.listAll<any>(`${neutron}/ports?network_id=${encodeURIComponent(net.id)}&project_id=${encodeURIComponent(project)}`, 'ports');
      // Only the project's own servers: Octavia amphorae have ports here too, owned by Octavia's project.
      for (const p of ports) if (ctx.owned(p) && typeof p.device_owner === 'string' && p.device_owner.startsWith('compute:')) servers.add(p.device_id);
    }
    if (servers.size === 0) {
      ctx.log(`network ${networkName}: no server left${Date.now() - started > 1000 ? ` after ${Math.round((Date.now() - started) / 1000)} s` : ''}`);
      return;
    }
    if (ctx.dryRun) {
      ctx.log(`network ${networkName}: ${servers.size} server(s) still there (${[...servers].join(', ')}); a real run waits for them`);
      return;
    }
    if (Date.now() + ctx.poll > ctx.deadline) {
      throw new CleanupError(
        `the cluster's servers are still on network ${networkName} after ${Math.round((Date.now() - started) / 1000)} s (${[...servers].join(', ')}): ` +
          'CAPI has not deleted the machines yet; nothing was deleted, run the destroy again once they are gone',
      );
    }
    if (Date.now() - lastReport >= 30_000) {
      lastReport = Date.now();
      ctx.log(`waiting for ${servers.size} server(s) on network ${networkName} to be deleted (CAPI removes the machines first): ${[...servers].join(', ')}`);
    }
    await sleep(ctx.poll);
  }
}

/** Octavia: DELETE with cascade once the load balancer is not busy; gone on 404 or DELETED. */
async function stepLoadBalancer(session: OpenStackSession, url: string): Promise<StepResult> {
  const res = await session.request('GET', url, { accept: [200, 404] });
  if (res.status === 404) return { state: 'gone' };
  const status: string = res.body?.loadbalancer?.provisioning_status ?? 'UNKNOWN';
  if (status === 'DELETED') return { state: 'gone' };
  if (status === 'PENDING_DELETE') return { state: 'waiting', why: 'PENDING_DELETE' };
  if (status.startsWith('PENDING_')) return { state: 'waiting', why: `${status} (Octavia is busy with it)` };
  const del = await session.request('DELETE', `${url}?cascade=true`, { accept: [202, 204, 404, 409] });
  if (del.status === 404) return { state: 'gone' };
  if (del.status === 409) return { state: 'waiting', why: 'busy (409), retrying' };
  return { state: 'waiting', why: 'deleting' };
}

/** Neutron floating IPs and security groups: DELETE; 409 (in use) is retried. */
async function stepSimpleDelete(session: OpenStackSession, url: string): Promise<StepResult> {
  const del = await session.request('DELETE', url, { accept: [204, 404, 409] });
  if (del.status === 409) return { state: 'waiting', why: 'in use (409), retrying' };
  const check = await session.request('GET', url, { accept: [200, 404] });
  return check.status === 404 ? { state: 'gone' } : { state: 'waiting', why: 'deleting' };
}

const DELETABLE_VOLUME = new Set(['available', 'error', 'error_restoring', 'error_extending', 'error_managing']);
const ATTACHED_VOLUME = new Set(['in-use', 'attaching', 'detaching', 'reserved']);

/** Cinder volume: wait while attached or busy, DELETE when available/error; snapshots left by others are reported. */
async function stepVolume(session: OpenStackSession, api: string, id: string): Promise<StepResult> {
  const url = `${api}/volumes/${id}`;
  const res = await session.request('GET', url, { accept: [200, 404] });
  if (res.status === 404) return { state: 'gone' };
  const volume = res.body?.volume ?? {};
  const status: string = volume.status ?? 'unknown';
  if (status === 'deleting') return { state: 'waiting', why: 'deleting' };
  if (status === 'error_deleting') return { state: 'failed', why: 'is in error_deleting (an admin must reset its state)' };
  if (ATTACHED_VOLUME.has(status)) {
    const servers = (volume.attachments ?? []).map((a: any) => a.server_id).filter(Boolean);
    return { state: 'waiting', why: `${status}${servers.length > 0 ? ` (attached to server ${servers.join(', ')})` : ''}` };
  }
  if (!DELETABLE_VOLUME.has(status)) return { state: 'waiting', why: status };
  const del = await session.request('DELETE', url, { accept: [202, 204, 400, 404, 409] });
  if (del.status === 404) return { state: 'gone' };
  if (del.status === 400 || del.status === 409) {
    const snapshots = await session.listAll<any>(`${api}/snapshots?volume_id=${encodeURIComponent(id)}`, 'snapshots');
    const left = snapshots.filter((s) => s.volume_id === id);
    if (left.length > 0) {
      return { state: 'failed', why: `has snapshots Cinder CSI did not make for this cluster (${left.map((s) => s.id).join(', ')}); delete them first` };
    }
    return { state: 'waiting', why: `refused with HTTP ${del.status}, retrying` };
  }
  return { state: 'waiting', why: 'deleting' };
}

/** Cinder snapshot: DELETE when available/error; wait while creating/deleting. */
async function stepSnapshot(session: OpenStackSession, url: string): Promise<StepResult> {
  const res = await session.request('GET', url, { accept: [200, 404] });
  if (res.status === 404) return { state: 'gone' };
  const status: string = res.body?.snapshot?.status ?? 'unknown';
  if (status === 'error_deleting') return { state: 'failed', why: 'is in error_deleting (an admin must reset its state)' };
  if (status !== 'available' && status !== 'error') return { state: 'waiting', why: status };
  const del = await session.request('DELETE', url, { accept: [202, 204, 400, 404, 409] });
  if (del.status === 404) return { state: 'gone' };
  if (del.status === 400 || del.status === 409) return { state: 'waiting', why: `refused with HTTP ${del.status}, retrying` };
  return { state: 'waiting', why: 'deleting' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
