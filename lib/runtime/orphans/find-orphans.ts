/**
 * Resources of an environment that exist in the cloud but in no Terraform state: what an apply
 * interrupted mid-flight leaves (the create succeeded, the state write never happened). The next
 * apply would create them again beside the orphans, or fail on them (a router's second interface on
 * one subnet). Pure: it classifies listings, the caller fetches and deletes.
 *
 * Ownership is exact (config/owned-names.ts): a resource is a candidate only when its name (a
 * floating IP: its description) is one the environment's stacks give a resource of that kind, and
 * no state of the environment (management and every workload stack) holds its id. A candidate
 * whose name another prefix/environment/cluster split could produce is an orphan only when it is
 * tied to an id of the environment's state (a port or subnet on its network, a server on its port,
 * an interface on its router, a volume on its server); else it is kept, with why. Security group
 * rules, which have no name, are found by shape (planned-rules.ts).
 */
import { OwnedName } from '../../config/owned-names';
import { RuleShape, describeRule, listedShape, shapeKey } from './planned-rules';

/** The kinds the stacks create that can be orphaned, in the order they can be deleted. */
export const ORPHAN_KINDS = ['router interface', 'server', 'floating IP', 'port', 'volume', 'subnet', 'network', 'router', 'security group rule', 'security group'] as const;
export type OrphanKind = (typeof ORPHAN_KINDS)[number];

export interface Orphan {
  readonly kind: OrphanKind;
  readonly id: string;
  /** Name (or description) that ties it to the environment. */
  readonly label: string;
  /** For a router interface: the router it is plugged into. */
  readonly routerId?: string;
}

/** A candidate left alone, with why. */
export interface KeptCandidate extends Orphan {
  readonly reason: string;
}

/** What the cloud lists, as its APIs answer (only the fields used here). */
export interface CloudListing {
  readonly networks: readonly { id: string; name?: string }[];
  readonly subnets: readonly { id: string; name?: string; network_id?: string }[];
  readonly routers: readonly { id: string; name?: string }[];
  readonly ports: readonly { id: string; name?: string; device_owner?: string; device_id?: string; network_id?: string }[];
  readonly securityGroups: readonly { id: string; name?: string }[];
  readonly securityGroupRules?: readonly (Parameters<typeof listedShape>[0] & { id: string })[];
  readonly floatingIps: readonly { id: string; description?: string; port_id?: string | null }[];
  readonly servers: readonly { id: string; name?: string }[];
  readonly volumes: readonly { id: string; name?: string; attachments?: readonly { server_id?: string }[] }[];
}

/** The environment's side: its exact names, the ids its states hold, and which names are ambiguous. */
export interface Ownership {
  readonly owned: readonly OwnedName[];
  /** Every id any state of the environment records. */
  readonly known: ReadonlySet<string>;
  /** Why another environment could own this name too (undefined: it cannot). */
  readonly ambiguity: (owned: OwnedName) => string | undefined;
  /** Owners (`management`, cluster names) whose state could not be read, with why: their names are not judged. */
  readonly unreadable?: ReadonlyMap<string, string>;
  /** The rules the stacks want on their recorded groups (planned-rules.ts). @default none */
  readonly plannedRules?: readonly RuleShape[];
}

export interface OrphanReport {
  /** In deletion order. */
  readonly orphans: Orphan[];
  readonly kept: KeptCandidate[];
}

/** Every id a Terraform state (`terraform state pull`) records, of any resource. */
export function stateIds(state: unknown): Set<string> {
  const ids = new Set<string>();
  const resources = (state as { resources?: unknown })?.resources;
  if (!Array.isArray(resources)) return ids;
  for (const r of resources) {
    for (const instance of Array.isArray(r?.instances) ? r.instances : []) {
      const attributes = instance?.attributes ?? {};
      for (const key of ['id', 'port_id']) if (typeof attributes[key] === 'string') ids.add(attributes[key]);
    }
  }
  return ids;
}

type Item = { id: string; name?: string; description?: string };

export function findOrphans(listing: CloudListing, ownership: Ownership): OrphanReport {
  const { known } = ownership;
  const orphans: Orphan[] = [];
  const kept: KeptCandidate[] = [];
  const byName = new Map(ownership.owned.map((o) => [`${o.kind} ${o.name}`, o]));
  const portsOf = (deviceId: string) => listing.ports.filter((p) => p.device_id === deviceId);
  /** Whether the resource hangs on an id of the environment's state. */
  const tied: Partial<Record<OrphanKind, (item: any) => boolean>> = {
    server: (s) => portsOf(s.id).some((p) => known.has(p.id) || (p.network_id !== undefined && known.has(p.network_id))),
    'floating IP': (f) => typeof f.port_id === 'string' && known.has(f.port_id),
    port: (p) => p.network_id !== undefined && known.has(p.network_id),
    volume: (v) => (v.attachments ?? []).some((a: { server_id?: string }) => a.server_id !== undefined && known.has(a.server_id)),
    subnet: (s) => s.network_id !== undefined && known.has(s.network_id),
  };
  const judge = (kind: OrphanKind, item: Item, ownedKind: OwnedName['kind'], label: string, extra: Partial<Orphan> = {}) => {
    const owned = byName.get(`${ownedKind} ${label}`);
    if (!owned || known.has(item.id)) return;
    const candidate: Orphan = { kind, id: item.id, label: kind === 'router interface' ? `${label} interface` : label, ...extra };
    const unreadable = ownership.unreadable?.get(owned.owner);
    if (unreadable !== undefined) return void kept.push({ ...candidate, reason: unreadable });
    const why = ownership.ambiguity(owned);
    if (why !== undefined && !(kind === 'router interface' ? known.has(extra.routerId!) : tied[kind]?.(item))) {
      return void kept.push({ ...candidate, reason: `${why}, and nothing ties it to this environment's state: check it, then delete it by hand` });
    }
    orphans.push(candidate);
  };
  for (const p of listing.ports) {
    const router = listing.routers.find((r) => r.id === p.device_id);
    if (router && p.device_owner === 'network:router_interface') judge('router interface', p, 'router', router.name ?? '', { routerId: router.id });
  }
  for (const s of listing.servers) judge('server', s, 'server', s.name ?? '');
  for (const f of listing.floatingIps) judge('floating IP', f, 'floating IP', f.description ?? '');
  for (const p of listing.ports) if (p.device_owner !== 'network:router_interface') judge('port', p, 'port', p.name ?? '');
  for (const v of listing.volumes) judge('volume', v, 'volume', v.name ?? '');
  for (const s of listing.subnets) judge('subnet', s, 'subnet', s.name ?? '');
  for (const n of listing.networks) judge('network', n, 'network', n.name ?? '');
  for (const r of listing.routers) judge('router', r, 'router', r.name ?? '');
  // a rule has no name: one on a group of the state, shaped like a rule the stack wants, that no state records
  const planned = new Set((ownership.plannedRules ?? []).map(shapeKey));
  for (const r of listing.securityGroupRules ?? []) {
    const shape = listedShape(r);
    if (!known.has(r.id) && planned.has(shapeKey(shape))) orphans.push({ kind: 'security group rule', id: r.id, label: describeRule(shape) });
  }
  for (const g of listing.securityGroups) judge('security group', g, 'security group', g.name ?? '');
  const order = (o: Orphan) => ORPHAN_KINDS.indexOf(o.kind);
  return { orphans: orphans.sort((a, b) => order(a) - order(b)), kept: kept.sort((a, b) => order(a) - order(b)) };
}
