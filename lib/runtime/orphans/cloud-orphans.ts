/** Lists what findOrphans classifies, and deletes orphans in an order the APIs accept. */
import { OpenStackApiError, OpenStackSession } from '../openstack-session';
import { CloudListing, Orphan } from './find-orphans';

function base(session: OpenStackSession, types: readonly string[], what: string): string {
  const found = session.endpoint(types);
  if (!found) throw new OpenStackApiError(`the service catalog has no ${what} endpoint (${types.join(', ')}); it lists: ${session.describeCatalog()}`);
  return found.url;
}

/** The listing of the token's project. Cinder is optional (a cloud without it has no volumes). */
export async function listCloud(session: OpenStackSession): Promise<CloudListing> {
  const net = `${base(session, ['network'], 'network')}/v2.0`;
  const compute = base(session, ['compute'], 'compute');
  const volume = session.endpoint(['volumev3', 'block-storage']);
  const project = encodeURIComponent(session.projectId);
  const [networks, subnets, routers, ports, securityGroups, securityGroupRules, floatingIps, servers, volumes] = await Promise.all([
    session.listAll(`${net}/networks?project_id=${project}`, 'networks'),
    session.listAll(`${net}/subnets?project_id=${project}`, 'subnets'),
    session.listAll(`${net}/routers?project_id=${project}`, 'routers'),
    session.listAll(`${net}/ports?project_id=${project}`, 'ports'),
    session.listAll(`${net}/security-groups?project_id=${project}`, 'security_groups'),
    session.listAll(`${net}/security-group-rules?project_id=${project}`, 'security_group_rules'),
    session.listAll(`${net}/floatingips?project_id=${project}`, 'floatingips'),
    session.request('GET', `${compute}/servers/detail`).then((r) => r.body?.servers ?? []),
    volume ? session.request('GET', `${volume.url}/volumes/detail`).then((r) => r.body?.volumes ?? []) : Promise.resolve([]),
  ]);
  return { networks, subnets, routers, ports, securityGroups, securityGroupRules, floatingIps, servers, volumes } as CloudListing;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deletes the orphans (they come in deletion order); waits for servers and volumes to go. */
export async function deleteOrphans(session: OpenStackSession, orphans: readonly Orphan[], log: (line: string) => void, pollMs = 2000, timeoutMs = 600_000): Promise<void> {
  const net = `${base(session, ['network'], 'network')}/v2.0`;
  const compute = () => base(session, ['compute'], 'compute');
  const volume = () => base(session, ['volumev3', 'block-storage'], 'block storage');
  const gone = [200, 202, 204, 404];
  const urls: Record<Orphan['kind'], (o: Orphan) => [string, string, unknown?]> = {
    'router interface': (o) => ['PUT', `${net}/routers/${o.routerId}/remove_router_interface`, { port_id: o.id }],
    server: (o) => ['DELETE', `${compute()}/servers/${o.id}`],
    'floating IP': (o) => ['DELETE', `${net}/floatingips/${o.id}`],
    port: (o) => ['DELETE', `${net}/ports/${o.id}`],
    volume: (o) => ['DELETE', `${volume()}/volumes/${o.id}`],
    subnet: (o) => ['DELETE', `${net}/subnets/${o.id}`],
    network: (o) => ['DELETE', `${net}/networks/${o.id}`],
    router: (o) => ['DELETE', `${net}/routers/${o.id}`],
    'security group rule': (o) => ['DELETE', `${net}/security-group-rules/${o.id}`],
    'security group': (o) => ['DELETE', `${net}/security-groups/${o.id}`],
  };
  for (const o of orphans) {
    const [method, url, body] = urls[o.kind](o);
    await session.request(method, url, { body, accept: gone });
    // servers and volumes go asynchronously; what depends on them (ports, networks) must wait
    if (o.kind === 'server' || o.kind === 'volume') {
      const show = o.kind === 'server' ? `${compute()}/servers/${o.id}` : `${volume()}/volumes/${o.id}`;
      const deadline = Date.now() + timeoutMs;
      while ((await session.request('GET', show, { accept: [200, 404] })).status === 200) {
        if (Date.now() > deadline) throw new OpenStackApiError(`${o.kind} ${o.id} (${o.label}) still exists ${Math.round(timeoutMs / 1000)}s after its deletion`);
        await sleep(pollMs);
      }
    }
    log(`deleted ${o.kind} ${o.id} (${o.label})`);
  }
}
