/**
 * A listing taken once the cloud has stopped changing. A deploy killed mid-apply leaves requests
 * that the cloud is still working on: Neutron finished a router interface about 6 s after the
 * process that asked for it was killed (seen in the interrupted-deploy e2e). A listing taken in
 * that window misses the resource, calls the environment clean, and the next deploy fails on it
 * ("Router already has a port on subnet"); its destroy then waits on the subnet for many minutes.
 * So the orphans check lists until two listings `settleMs` apart agree.
 */
import { CloudListing } from './find-orphans';

/** What changed between two listings, one line per resource (empty: the same). */
export function listingChanges(before: CloudListing, after: CloudListing): string[] {
  const keys = (l: CloudListing) => new Map(entries(l).map((e) => [e.key, e.text]));
  const a = keys(before);
  const b = keys(after);
  const changes: string[] = [];
  for (const [key, text] of b) if (!a.has(key)) changes.push(`new ${text}`);
  for (const [key, text] of a) if (!b.has(key)) changes.push(`gone ${text}`);
  return changes.sort();
}

/** Each resource with what ties it to others (a port's device, a floating IP's port, a volume's server). */
function entries(l: CloudListing): { key: string; text: string }[] {
  const entry = (kind: string, id: string, tie = '') => ({ key: `${kind} ${id} ${tie}`, text: `${kind} ${id}${tie ? ` (${tie})` : ''}` });
  return [
    ...l.networks.map((n) => entry('network', n.id)),
    ...l.subnets.map((s) => entry('subnet', s.id)),
    ...l.routers.map((r) => entry('router', r.id)),
    ...l.ports.map((p) => entry('port', p.id, p.device_id ? `on ${p.device_owner ?? 'device'} ${p.device_id}` : '')),
    ...l.securityGroups.map((g) => entry('security group', g.id)),
    ...(l.securityGroupRules ?? []).map((r) => entry('security group rule', r.id)),
    ...l.floatingIps.map((f) => entry('floating IP', f.id, f.port_id ? `on port ${f.port_id}` : '')),
    ...l.servers.map((s) => entry('server', s.id)),
    ...l.volumes.map((v) => entry('volume', v.id, (v.attachments ?? []).map((x) => x.server_id ?? '').filter(Boolean).sort().map((s) => `on server ${s}`).join(', '))),
  ];
}

export interface SettleOptions {
  /** Time between the two listings that must agree. 0: one listing, no wait. */
  readonly settleMs: number;
  /** Give up when the cloud is still changing after this long. */
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Thrown when the cloud keeps changing: a deploy of the environment is probably running. */
export class UnsettledCloudError extends Error {}

/** Lists until two listings `settleMs` apart agree; returns the last. */
export async function listSettled(list: () => Promise<CloudListing>, options: SettleOptions): Promise<CloudListing> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  const seconds = Math.round(options.settleMs / 1000);
  const deadline = now() + options.timeoutMs;
  let previous = await list();
  if (options.settleMs <= 0) return previous;
  for (;;) {
    options.log(`waiting ${seconds}s for the project to settle (a killed deploy's last requests can still be in progress), then listing again…`);
    await sleep(options.settleMs);
    const current = await list();
    const changes = listingChanges(previous, current);
    if (changes.length === 0) return current;
    const shown = changes.slice(0, 5).join('; ') + (changes.length > 5 ? `; and ${changes.length - 5} more` : '');
    if (now() >= deadline) {
      throw new UnsettledCloudError(`the project is still changing after ${Math.round(options.timeoutMs / 1000)}s (${shown}): is a deploy or destroy of it running? Run orphans only when none is.`);
    }
    options.log(`the project changed in ${seconds}s: ${shown}`);
    previous = current;
  }
}
