/** How each kind of leftover is moved towards deletion, and the loop that waits for all of them. */
import { CleanupError, ResourceKind, ResourceRef } from './leftovers-types';
import { OpenStackApiError, OpenStackSession } from '../openstack-session';

export type StepResult = { state: 'gone' } | { state: 'waiting'; why: string } | { state: 'failed'; why: string };

export interface Tracked extends ResourceRef {
  /** Looks at the resource and moves it towards deletion. */
  step(): Promise<StepResult>;
}

export function ref(item: ResourceRef): ResourceRef {
  return { kind: item.kind, id: item.id, label: item.label };
}

export function tracked(kind: ResourceKind, id: string, label: string | undefined, step: () => Promise<StepResult>): Tracked {
  return { kind, id, label: label ?? '', step };
}

/** Cinder lists only the project's own volumes without all_tenants; the tenant attribute (admins see it) must agree. */
export function ownedVolume(project: string): (item: any) => boolean {
  return (item) => {
    const owner = item['os-vol-tenant-attr:tenant_id'] ?? item['os-extended-snapshot-attributes:project_id'];
    return owner === undefined || owner === project;
  };
}

export interface LoopContext {
  readonly deadline: number;
  readonly poll: number;
  readonly log: (line: string) => void;
  readonly started: number;
}

/** Steps every item until it is gone or failed, or the deadline passes; a waiting line every 30 s. */
export async function converge(items: Tracked[], ctx: LoopContext): Promise<{ gone: Tracked[]; failed: { item: Tracked; why: string }[] }> {
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

export async function waitForServersGone(
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
export async function stepLoadBalancer(session: OpenStackSession, url: string): Promise<StepResult> {
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
export async function stepSimpleDelete(session: OpenStackSession, url: string): Promise<StepResult> {
  const del = await session.request('DELETE', url, { accept: [204, 404, 409] });
  if (del.status === 409) return { state: 'waiting', why: 'in use (409), retrying' };
  const check = await session.request('GET', url, { accept: [200, 404] });
  return check.status === 404 ? { state: 'gone' } : { state: 'waiting', why: 'deleting' };
}

const DELETABLE_VOLUME = new Set(['available', 'error', 'error_restoring', 'error_extending', 'error_managing']);
const ATTACHED_VOLUME = new Set(['in-use', 'attaching', 'detaching', 'reserved']);

/** Cinder volume: wait while attached or busy, DELETE when available/error; snapshots left by others are reported. */
export async function stepVolume(session: OpenStackSession, api: string, id: string): Promise<StepResult> {
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
export async function stepSnapshot(session: OpenStackSession, url: string): Promise<StepResult> {
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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
