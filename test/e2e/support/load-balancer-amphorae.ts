/**
 * Test tooling, not product: the stand-in amphorae of one workload cluster's Octavia load
 * balancers (the local cloud's no-op Octavia driver forwards nothing). The workload hypervisor
 * (workload-hypervisor.ts) calls it on each of its steps.
 *
 * Followed are the cluster's API load balancer (CAPO's name) and, given OCCM's name prefix
 * (`kube_service_<its --cluster-name>_`), the load balancers OCCM makes for the cluster's Services
 * of type LoadBalancer. Each gets an amphora of its own (haproxy, scripts/local-vm/amphora-up) with
 * one leg on the node network at its VIP and, once Neutron has a floating IP on the VIP port, one
 * on the stand-in public network (172.30.251.0/24) at that address; each listener of the load
 * balancer gets its pool's members (amphora-members) as they change. A load balancer that goes
 * takes its amphora with it. What was followed is kept (`followed`), so a destroy check can ask
 * OpenStack whether each load balancer and floating IP is gone.
 */
import { runLocalVm } from './hypervisor-kit';
import { OpenStackApi } from './openstack-api';

/** The stand-in public network of scripts/local-vm/lib.sh (LOCAL_VM_STANDIN_NETWORK). */
export const STANDIN_PUBLIC_NETWORK = process.env.LOCAL_VM_STANDIN_NETWORK ?? 'lvm-vm';

export interface LoadBalancerAmphoraeOptions {
  /** The cloud's admin. */
  readonly admin: OpenStackApi;
  /** The cluster's project: names repeat across projects (other e2e lanes). */
  readonly projectId: string;
  readonly dockerHost: string;
  /** Container names start with `<tag>-`. */
  readonly tag: string;
  /** Docker image of the amphora stand-in (build-workload-images' amphora=). */
  readonly amphoraImage: string;
  /** The Octavia load balancer of the cluster's API, by name. */
  readonly apiLoadBalancerName: string;
  /**
   * Load balancers whose name starts with this are followed too (OCCM's `kube_service_<cluster name>_`).
   * @default - none
   */
  readonly serviceLoadBalancerPrefix?: string;
  /** The Docker network of a Neutron subnet (the hypervisor makes it once). */
  readonly networkOf: (subnetId: string) => Promise<string>;
  readonly note: (line: string) => void;
}

/** The stand-in amphora of one load balancer. */
export interface Amphora {
  readonly loadBalancerId: string;
  readonly loadBalancerName: string;
  readonly container: string;
  readonly vip: string;
  /** The floating IP on the VIP port ('' while it has none). */
  readonly fip: string;
  readonly network: string;
  /** listener port → members, as last given to amphora-members. */
  readonly members: Map<number, string>;
}

/** A load balancer an amphora stood for, kept after it went. */
export interface FollowedLoadBalancer {
  readonly id: string;
  readonly name: string;
  /** Floating IPs seen on its VIP port: id → address. */
  readonly floatingIps: Map<string, string>;
  /** Epoch ms when its amphora first stood, and when it was removed because the load balancer went. */
  upAt?: number;
  goneAt?: number;
}

export class LoadBalancerAmphorae {
  /** Amphorae standing, by load balancer id. */
  readonly standing = new Map<string, Amphora>();
  /** Every load balancer an amphora stood for, by id. */
  readonly followed = new Map<string, FollowedLoadBalancer>();

  constructor(private readonly o: LoadBalancerAmphoraeOptions) {}

  /** The API load balancer's amphora. */
  get api(): Amphora | undefined {
    return [...this.standing.values()].find((a) => a.loadBalancerName === this.o.apiLoadBalancerName);
  }

  /** The amphorae of the Services' load balancers. */
  services(): Amphora[] {
    return [...this.standing.values()].filter((a) => a.loadBalancerName !== this.o.apiLoadBalancerName);
  }

  /** The project's load balancers; the amphora of one no longer listed is removed. */
  async listRemovingGone(): Promise<any[]> {
    const listed = (await this.o.admin.get<{ loadbalancers: any[] }>('load-balancer', `/v2/lbaas/loadbalancers?project_id=${this.o.projectId}`)).loadbalancers;
    const lbs = listed.filter((l) => l.project_id === this.o.projectId && l.provisioning_status !== 'DELETED');
    for (const a of [...this.standing.values()]) {
      if (lbs.some((l) => l.id === a.loadBalancerId)) continue;
      this.o.note(`load balancer ${a.loadBalancerName} (${a.loadBalancerId}) is gone: removing its amphora`);
      this.down(a);
      this.followed.get(a.loadBalancerId)!.goneAt = Date.now();
    }
    return lbs;
  }

  /** The API load balancer's amphora; its VIP and floating IP once both exist. */
  async followApi(lbs: readonly any[]): Promise<{ vip: string; fip: string } | undefined> {
    const api = lbs.find((l) => l.name === this.o.apiLoadBalancerName);
    return api ? this.follow(api, true) : undefined;
  }

  /** The amphorae of the Services' load balancers (none without a prefix). */
  async followServices(lbs: readonly any[]): Promise<void> {
    const prefix = this.o.serviceLoadBalancerPrefix;
    if (!prefix) return;
    for (const lb of lbs.filter((l) => typeof l.name === 'string' && l.name.startsWith(prefix))) await this.follow(lb, false);
  }

  /** Removes every amphora. */
  removeAll(): void {
    for (const a of [...this.standing.values()]) this.down(a);
  }

  /**
   * A load balancer as a stand-in amphora at its VIP and, once there, its floating IP; its listeners
   * get their pools' members. Undefined while it has no VIP, or no floating IP when `needsFloatingIp`.
   */
  private async follow(lb: any, needsFloatingIp: boolean): Promise<{ vip: string; fip: string } | undefined> {
    if (!lb.vip_address || !lb.vip_subnet_id || !lb.vip_port_id) return undefined;
    const fips = (await this.o.admin.network<{ floatingips: any[] }>(`/floatingips?port_id=${lb.vip_port_id}`)).floatingips;
    if (fips.length === 0 && needsFloatingIp) return undefined;
    const fip = (fips[0]?.floating_ip_address as string | undefined) ?? '';
    const followed: FollowedLoadBalancer = this.followed.get(lb.id) ?? { id: lb.id, name: lb.name, floatingIps: new Map<string, string>() };
    this.followed.set(lb.id, followed);
    for (const f of fips) followed.floatingIps.set(f.id, f.floating_ip_address);
    let amphora = this.standing.get(lb.id);
    if (amphora && (amphora.vip !== lb.vip_address || amphora.fip !== fip)) {
      this.o.note(`load balancer ${lb.name}: VIP ${lb.vip_address}, floating IP ${fip || '(none)'} now: its amphora is made again`);
      this.down(amphora);
      amphora = undefined;
    }
    if (!amphora) {
      amphora = await this.up(lb, fip);
      followed.upAt ??= Date.now();
    }
    await this.syncListeners(lb.id, amphora);
    return { vip: amphora.vip, fip: amphora.fip };
  }

  private async up(lb: any, fip: string): Promise<Amphora> {
    const network = await this.o.networkOf(lb.vip_subnet_id);
    // the API's keeps its name of old; a Service's is named by its load balancer's id
    const container = lb.name === this.o.apiLoadBalancerName ? `${this.o.tag}-amphora` : `${this.o.tag}-lb-${lb.id.slice(0, 8)}`;
    this.o.note(`load balancer ${lb.name} (${lb.id}): VIP ${lb.vip_address}, floating IP ${fip || '(none)'}: amphora-up ${container}`);
    const publicLeg = fip ? [STANDIN_PUBLIC_NETWORK, fip] : [];
    const r = runLocalVm(this.o.dockerHost, 'amphora-up', [container, network, lb.vip_address, ...publicLeg], { LOCAL_VM_AMPHORA_IMAGE: this.o.amphoraImage });
    if (r.code !== 0) throw new Error(`amphora-up ${container} failed (${r.code}): ${r.out.slice(-1500)}`);
    const amphora: Amphora = { loadBalancerId: lb.id, loadBalancerName: lb.name, container, vip: lb.vip_address, fip, network, members: new Map() };
    this.standing.set(lb.id, amphora);
    return amphora;
  }

  /** Each listener's port carries its pool's members; a listener that went closes its port. */
  private async syncListeners(lbId: string, amphora: Amphora): Promise<void> {
    const listeners = (await this.o.admin.get<{ listeners: any[] }>('load-balancer', `/v2/lbaas/listeners?loadbalancer_id=${lbId}`)).listeners;
    const wanted = new Map<number, string[]>();
    for (const l of listeners) {
      const members = l.default_pool_id ? (await this.o.admin.get<{ members: any[] }>('load-balancer', `/v2/lbaas/pools/${l.default_pool_id}/members`)).members : [];
      wanted.set(l.protocol_port, members.map((m) => `${m.address}:${m.protocol_port}`).sort());
    }
    for (const port of amphora.members.keys()) if (!wanted.has(port)) wanted.set(port, []);
    for (const [port, members] of wanted) {
      const key = members.join(' ');
      if ((amphora.members.get(port) ?? (members.length === 0 ? '' : undefined)) === key) continue;
      this.o.note(`${amphora.container} listener ${port}: members [${key}] → amphora-members`);
      const r = runLocalVm(this.o.dockerHost, 'amphora-members', [amphora.container, String(port), ...members]);
      if (r.code !== 0) throw new Error(`amphora-members ${amphora.container} ${port} failed (${r.code}): ${r.out.slice(-1500)}`);
      if (members.length > 0 || listeners.some((l) => l.protocol_port === port)) amphora.members.set(port, key);
      else amphora.members.delete(port);
    }
  }

  private down(a: Amphora): void {
    const r = runLocalVm(this.o.dockerHost, 'amphora-down', [a.container]);
    this.o.note(`amphora-down ${a.container}: exit ${r.code}`);
    this.standing.delete(a.loadBalancerId);
  }
}
