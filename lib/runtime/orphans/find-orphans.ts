/**
 * Resources of an environment that exist in the cloud but in no Terraform state: what an apply
 * interrupted mid-flight leaves (the create succeeded, the state write never happened). The next
 * apply would create them again beside the orphans, or fail on them (a router's second interface on
 * one subnet). Pure: it classifies listings, the caller fetches and deletes.
 */

/** The kinds the management stack creates, in the order they can be deleted. */
export const ORPHAN_KINDS = ['router interface', 'server', 'floating IP', 'port', 'volume', 'subnet', 'network', 'router', 'security group'] as const;
export type OrphanKind = (typeof ORPHAN_KINDS)[number];

export interface Orphan {
  readonly kind: OrphanKind;
  readonly id: string;
  /** Name (or description) that ties it to the environment. */
  readonly label: string;
  /** For a router interface: the router it is plugged into. */
  readonly routerId?: string;
}

/** What the cloud lists, as its APIs answer (only the fields used here). */
export interface CloudListing {
  readonly networks: readonly { id: string; name?: string }[];
  readonly subnets: readonly { id: string; name?: string }[];
  readonly routers: readonly { id: string; name?: string }[];
  readonly ports: readonly { id: string; name?: string; device_owner?: string; device_id?: string }[];
  readonly securityGroups: readonly { id: string; name?: string }[];
  readonly floatingIps: readonly { id: string; description?: string }[];
  readonly servers: readonly { id: string; name?: string }[];
  readonly volumes: readonly { id: string; name?: string }[];
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

/** Resources named `<prefix>-…` (floating IPs: described so) that no state holds, in deletion order. */
export function findOrphans(listing: CloudListing, known: ReadonlySet<string>, resourcePrefix: string): Orphan[] {
  const ours = (name: string | undefined) => typeof name === 'string' && name.startsWith(`${resourcePrefix}-`);
  const orphans: Orphan[] = [];
  const add = (kind: OrphanKind, items: readonly { id: string; name?: string }[]) => {
    for (const i of items) if (ours(i.name) && !known.has(i.id)) orphans.push({ kind, id: i.id, label: i.name! });
  };
  const routers = listing.routers.filter((r) => ours(r.name));
  for (const p of listing.ports) {
    const router = routers.find((r) => r.id === p.device_id);
    if (router && p.device_owner === 'network:router_interface' && !known.has(p.id)) {
      orphans.push({ kind: 'router interface', id: p.id, label: `${router.name} interface`, routerId: router.id });
    }
  }
  add('server', listing.servers);
  for (const f of listing.floatingIps) if (ours(f.description) && !known.has(f.id)) orphans.push({ kind: 'floating IP', id: f.id, label: f.description! });
  add('port', listing.ports.filter((p) => p.device_owner !== 'network:router_interface'));
  add('volume', listing.volumes);
  add('subnet', listing.subnets);
  add('network', listing.networks);
  add('router', listing.routers);
  add('security group', listing.securityGroups);
  return orphans.sort((a, b) => ORPHAN_KINDS.indexOf(a.kind) - ORPHAN_KINDS.indexOf(b.kind));
}
