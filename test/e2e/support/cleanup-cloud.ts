/**
 * Helpers of the cluster-leftovers e2e suite: a password-login OpenStack client for the local cloud
 * (clouds.yaml entry `local-e2e`) that creates and inspects what the suite needs — application
 * credentials, volumes and snapshots with Cinder CSI's metadata, a network with a server holding a
 * volume — independently of the code under test (plain fetch, its own catalog lookup).
 */
import { login, withToken } from './keystone';
import { PasswordCloud } from './local-cloud-probe';

export const CSI_KEY = 'cinder.csi.openstack.org/cluster';

interface CatalogEntry {
  readonly type: string;
  readonly endpoints: { readonly interface: string; readonly region_id?: string; readonly region?: string; readonly url: string }[];
}

export class LocalCloud {
  private constructor(
    private readonly entry: PasswordCloud,
    private readonly token: string,
    private readonly catalog: CatalogEntry[],
    readonly userId: string,
    readonly projectId: string,
  ) {}

  static async login(entry: PasswordCloud): Promise<LocalCloud> {
    const result = await login(entry);
    return new LocalCloud(entry, result.token, result.catalog as CatalogEntry[], result.userId, result.projectId);
  }

  get authUrl(): string {
    return this.entry.authUrl;
  }

  get region(): string {
    return this.entry.region;
  }

  hasService(type: string): boolean {
    return this.catalog.some((s) => s.type === type);
  }

  private endpoint(type: string): string {
    if (type === 'identity') return this.entry.authUrl;
    const types = type === 'volume' ? ['block-storage', 'volumev3'] : [type];
    for (const t of types) {
      const ep = this.catalog.find((s) => s.type === t)?.endpoints.find((e) => e.interface === this.entry.interface && (e.region_id ?? e.region) === this.entry.region);
      if (ep) return ep.url.replace(/\/+$/, '');
    }
    throw new Error(`no ${type} endpoint in the local cloud's catalog`);
  }

  /** JSON request; `ok` statuses return the body, anything else throws with the answer. */
  async call<T = any>(method: string, type: string, path: string, body?: unknown, ok: number[] = [200, 201, 202, 204]): Promise<{ status: number; body: T }> {
    const url = `${this.endpoint(type)}${path}`;
    const res = await withToken(this.token, method, url, { body, timeoutMs: 60_000 });
    if (!ok.includes(res.status)) throw new Error(`${method} ${url}: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    return { status: res.status, body: res.body as T };
  }

  async createApplicationCredential(name: string): Promise<{ id: string; secret: string }> {
    const r = await this.call('POST', 'identity', `/users/${this.userId}/application_credentials`, {
      application_credential: { name, description: 'cluster-leftovers e2e (deleted by the suite)', unrestricted: false },
    });
    return { id: r.body.application_credential.id, secret: r.body.application_credential.secret };
  }

  async applicationCredentials(): Promise<{ id: string; name: string }[]> {
    return (await this.call('GET', 'identity', `/users/${this.userId}/application_credentials`)).body.application_credentials;
  }

  async deleteApplicationCredential(id: string): Promise<void> {
    await this.call('DELETE', 'identity', `/users/${this.userId}/application_credentials/${id}`, undefined, [204, 404]);
  }

  async createVolume(name: string, metadata: Record<string, string>): Promise<string> {
    const r = await this.call('POST', 'volume', '/volumes', { volume: { size: 1, name, metadata } });
    const id: string = r.body.volume.id;
    await this.waitFor(`volume ${name}`, async () => (await this.volume(id))?.status === 'available');
    return id;
  }

  async createSnapshot(volumeId: string, name: string, metadata: Record<string, string>): Promise<string> {
    const r = await this.call('POST', 'volume', '/snapshots', { snapshot: { volume_id: volumeId, name, metadata } });
    const id: string = r.body.snapshot.id;
    await this.waitFor(`snapshot ${name}`, async () => (await this.snapshot(id))?.status === 'available');
    return id;
  }

  async volume(id: string): Promise<any | undefined> {
    const r = await this.call('GET', 'volume', `/volumes/${id}`, undefined, [200, 404]);
    return r.status === 404 ? undefined : r.body.volume;
  }

  async snapshot(id: string): Promise<any | undefined> {
    const r = await this.call('GET', 'volume', `/snapshots/${id}`, undefined, [200, 404]);
    return r.status === 404 ? undefined : r.body.snapshot;
  }

  /** Volumes and snapshots whose name starts with `prefix`, as `name` lists. */
  async volumeNames(prefix: string): Promise<{ volumes: string[]; snapshots: string[] }> {
    const volumes = (await this.call('GET', 'volume', '/volumes/detail')).body.volumes as any[];
    const snapshots = (await this.call('GET', 'volume', '/snapshots/detail')).body.snapshots as any[];
    const names = (items: any[]) => items.map((i) => String(i.name ?? '')).filter((n) => n.startsWith(prefix)).sort();
    return { volumes: names(volumes), snapshots: names(snapshots) };
  }

  /** A network with a subnet and a server on it holding `volumeId` (what a cluster's machine looks like). */
  async serverWithVolume(networkName: string, serverName: string, volumeId: string): Promise<{ networkId: string; serverId: string }> {
    const net = (await this.call('POST', 'network', '/v2.0/networks', { network: { name: networkName } })).body.network;
    await this.call('POST', 'network', '/v2.0/subnets', { subnet: { network_id: net.id, name: networkName, cidr: '10.213.0.0/24', ip_version: 4 } });
    const flavors = (await this.call('GET', 'compute', '/flavors')).body.flavors as { id: string; name: string }[];
    const flavor = flavors.find((f) => f.name === 'SCS-2V-4') ?? flavors.find((f) => f.name === 'm1.tiny');
    const images = (await this.call('GET', 'image', `/v2/images?name=${encodeURIComponent('Ubuntu 24.04')}`)).body.images as { id: string }[];
    if (!flavor || images.length === 0) throw new Error('the local cloud lacks flavor SCS-2V-4 / m1.tiny or image "Ubuntu 24.04"');
    const server = (await this.call('POST', 'compute', '/servers', { server: { name: serverName, flavorRef: flavor.id, imageRef: images[0].id, networks: [{ uuid: net.id }] } })).body.server;
    await this.waitFor(`server ${serverName}`, async () => {
      const s = (await this.call('GET', 'compute', `/servers/${server.id}`)).body.server;
      if (s.status === 'ERROR') throw new Error(`server ${serverName} went to ERROR: ${JSON.stringify(s.fault ?? {})}`);
      return s.status === 'ACTIVE';
    });
    await this.call('POST', 'compute', `/servers/${server.id}/os-volume_attachments`, { volumeAttachment: { volumeId } });
    await this.waitFor(`volume ${volumeId} attached`, async () => (await this.volume(volumeId))?.status === 'in-use');
    return { networkId: net.id, serverId: server.id };
  }

  /**
   * What OCCM makes for a Service of type LoadBalancer of `cluster`: an Octavia load balancer named
   * `kube_service_<cluster>_<ns>_<svc>` on the subnet of `networkId`, ACTIVE, with a floating IP on
   * the external network `public` attached to its VIP.
   */
  async occmLoadBalancer(cluster: string, service: string, networkId: string): Promise<{ lbId: string; fipId: string }> {
    const subnet = (await this.call('GET', 'network', `/v2.0/subnets?network_id=${networkId}`)).body.subnets[0];
    const ref = `default/${service}`;
    const lb = (
      await this.call('POST', 'load-balancer', '/v2/lbaas/loadbalancers', {
        loadbalancer: { name: `kube_service_${cluster}_default_${service}`, description: `Kubernetes external service ${ref} from cluster ${cluster}`, vip_subnet_id: subnet.id },
      })
    ).body.loadbalancer;
    await this.waitFor(`load balancer ${lb.name} ACTIVE`, async () => (await this.loadBalancer(lb.id))?.provisioning_status === 'ACTIVE');
    const external = (await this.call('GET', 'network', '/v2.0/networks?name=public')).body.networks[0];
    await this.routerToExternal(subnet, external.id);
    const fip = (
      await this.call('POST', 'network', '/v2.0/floatingips', {
        floatingip: { floating_network_id: external.id, port_id: lb.vip_port_id, description: `Floating IP for Kubernetes external service ${ref} from cluster ${cluster}` },
      })
    ).body.floatingip;
    return { lbId: lb.id, fipId: fip.id };
  }

  /** A router `<subnet name>-router` from `subnet` to the external network (what a floating IP on the subnet needs); made once. */
  private async routerToExternal(subnet: { id: string; name: string }, externalId: string): Promise<void> {
    const name = `${subnet.name}-router`;
    if ((await this.call('GET', 'network', `/v2.0/routers?name=${encodeURIComponent(name)}`)).body.routers.length > 0) return;
    const router = (await this.call('POST', 'network', '/v2.0/routers', { router: { name, external_gateway_info: { network_id: externalId } } })).body.router;
    await this.call('PUT', 'network', `/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
  }

  async loadBalancer(id: string): Promise<any | undefined> {
    const r = await this.call('GET', 'load-balancer', `/v2/lbaas/loadbalancers/${id}`, undefined, [200, 404]);
    return r.status === 404 || r.body.loadbalancer.provisioning_status === 'DELETED' ? undefined : r.body.loadbalancer;
  }

  async floatingIp(id: string): Promise<any | undefined> {
    const r = await this.call('GET', 'network', `/v2.0/floatingips/${id}`, undefined, [200, 404]);
    return r.status === 404 ? undefined : r.body.floatingip;
  }

  async deleteServer(id: string): Promise<void> {
    await this.call('DELETE', 'compute', `/servers/${id}`, undefined, [204, 404]);
    await this.waitFor(`server ${id} deleted`, async () => (await this.call('GET', 'compute', `/servers/${id}`, undefined, [200, 404])).status === 404);
  }

  /** Deletes what the suite made whose name starts with (load balancers, floating IPs: contains) `prefix`; best effort. */
  async sweep(prefix: string): Promise<string[]> {
    const problems: string[] = [];
    const attempt = async (what: string, f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (e) {
        problems.push(`${what}: ${(e as Error).message}`);
      }
    };
    const servers = (await this.call('GET', 'compute', '/servers')).body.servers as { id: string; name: string }[];
    for (const s of servers.filter((x) => x.name.startsWith(prefix))) await attempt(`server ${s.name}`, () => this.deleteServer(s.id));
    if (this.hasService('load-balancer')) {
      const lbs = (await this.call('GET', 'load-balancer', `/v2/lbaas/loadbalancers?project_id=${this.projectId}`)).body.loadbalancers as { id: string; name: string }[];
      for (const lb of lbs.filter((x) => x.name.includes(prefix))) {
        await attempt(`load balancer ${lb.name}`, async () => {
          await this.call('DELETE', 'load-balancer', `/v2/lbaas/loadbalancers/${lb.id}?cascade=true`, undefined, [204, 404, 409]);
          await this.waitFor(`load balancer ${lb.name} deleted`, async () => (await this.loadBalancer(lb.id)) === undefined);
        });
      }
    }
    const fips = (await this.call('GET', 'network', `/v2.0/floatingips?project_id=${this.projectId}`)).body.floatingips as { id: string; description: string }[];
    for (const f of fips.filter((x) => (x.description ?? '').includes(prefix))) await attempt(`floating IP ${f.id}`, () => this.call('DELETE', 'network', `/v2.0/floatingips/${f.id}`, undefined, [204, 404]));
    const snapshots = (await this.call('GET', 'volume', '/snapshots/detail')).body.snapshots as any[];
    for (const s of snapshots.filter((x) => String(x.name ?? '').startsWith(prefix))) {
      await attempt(`snapshot ${s.name}`, async () => {
        await this.call('DELETE', 'volume', `/snapshots/${s.id}`, undefined, [202, 404]);
        await this.waitFor(`snapshot ${s.name} deleted`, async () => (await this.snapshot(s.id)) === undefined);
      });
    }
    const volumes = (await this.call('GET', 'volume', '/volumes/detail')).body.volumes as any[];
    for (const v of volumes.filter((x) => String(x.name ?? '').startsWith(prefix))) {
      await attempt(`volume ${v.name}`, async () => {
        await this.waitFor(`volume ${v.name} detached`, async () => !['in-use', 'attaching', 'detaching', 'deleting'].includes((await this.volume(v.id))?.status ?? 'gone'));
        await this.call('DELETE', 'volume', `/volumes/${v.id}`, undefined, [202, 404]);
        await this.waitFor(`volume ${v.name} deleted`, async () => (await this.volume(v.id)) === undefined);
      });
    }
    const routers = (await this.call('GET', 'network', `/v2.0/routers?project_id=${this.projectId}`)).body.routers as { id: string; name: string }[];
    for (const router of routers.filter((x) => x.name.includes(prefix))) {
      await attempt(`router ${router.name}`, async () => {
        const ports = (await this.call('GET', 'network', `/v2.0/ports?device_id=${router.id}&device_owner=network:router_interface`)).body.ports as any[];
        for (const port of ports) await this.call('PUT', 'network', `/v2.0/routers/${router.id}/remove_router_interface`, { port_id: port.id }, [200, 404]);
        await this.call('DELETE', 'network', `/v2.0/routers/${router.id}`, undefined, [204, 404]);
      });
    }
    const networks = (await this.call('GET', 'network', `/v2.0/networks?project_id=${this.projectId}`)).body.networks as { id: string; name: string }[];
    for (const n of networks.filter((x) => x.name.includes(prefix))) await attempt(`network ${n.name}`, () => this.call('DELETE', 'network', `/v2.0/networks/${n.id}`, undefined, [204, 404]));
    for (const c of (await this.applicationCredentials()).filter((x) => x.name.startsWith(prefix))) {
      await attempt(`application credential ${c.name}`, () => this.deleteApplicationCredential(c.id));
    }
    return problems;
  }

  async waitFor(what: string, done: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
    const started = Date.now();
    while (!(await done())) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
