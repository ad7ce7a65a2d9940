/**
 * Test tooling, not product: the local cloud's fake Nova driver boots nothing and its no-op
 * Octavia driver forwards nothing, so this plays the hypervisor and the amphorae for the servers
 * and the load balancers of ONE workload cluster (issue 35): its API load balancer and those OCCM
 * makes for its Services of type LoadBalancer (issue 36).
 *
 * It watches, as the cloud's admin (Nova microversion 2.3 shows `OS-EXT-SRV-ATTR:user_data`):
 * - the cluster's servers: once one is ACTIVE, the Docker network of its Neutron subnet is made
 *   (scripts/local-vm/node-network-up, once per subnet) and a node stand-in boots
 *   (scripts/local-vm/node-up) with the server's user data, unchanged, as cloud-init's NoCloud seed
 *   (instance-id = the server id, local-hostname = its name) at the server's fixed IP; a deleted
 *   server's stand-in is removed (node-down);
 * - the cluster's Octavia load balancers (the API's, by CAPO's name; the Services', by OCCM's name
 *   prefix): per load balancer its VIP address and subnet, the floating IP whose port is the VIP
 *   port, its listeners and their pools' members → a stand-in amphora of its own (haproxy,
 *   scripts/local-vm/amphora-up / amphora-members) with one leg on the node network at the VIP and
 *   one on the stand-in public network (172.30.251.0/24) at the floating IP; a load balancer that
 *   goes takes its amphora with it. Nodes route the API's floating IP through its VIP
 *   (LOCAL_VM_NODE_ROUTES), as a cloud's router would;
 * - the workload cluster itself (kubeconfig from the cluster's `<name>-kubeconfig` Secret in the
 *   management cluster): once Nodes have spec.podCIDR, a stand-in CNI (scripts/local-vm/node-cni:
 *   a bridge for the node's pod CIDR and routes to the others') is set on every node — the
 *   product's CNI comes through the add-on provider, which this world cannot serve.
 *
 * Every action is logged with its time; per server it records when its stand-in started and when
 * its Node was first seen Ready.
 */
import * as path from 'path';
import { credentialsFromKubeconfig } from '../../../lib/runtime/cli/kubeconfig/kubeconfig-file';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { PollLoop, runLocalVm, testDocker, writeNoCloudSeed } from './hypervisor-kit';
import { Amphora, LoadBalancerAmphorae } from './load-balancer-amphorae';
import { OpenStackApi } from './openstack-api';

export interface WorkloadHypervisorOptions {
  /** The cloud's admin (reads every project's servers and their user data). */
  readonly admin: OpenStackApi;
  /** The management cluster, where CAPI writes the cluster's kubeconfig Secret. */
  readonly management: KubeClient;
  readonly namespace: string;
  readonly cluster: string;
  /** The cluster's project: names repeat across projects (other e2e lanes), so only its servers and load balancer are followed. */
  readonly projectId: string;
  /** Whether a server of the project (Nova's detail: name, …) belongs to the cluster. */
  readonly ownsServer: (server: { readonly name: string }) => boolean;
  /** The Octavia load balancer of the cluster's API, by name. */
  readonly loadBalancerName: string;
  /**
   * Load balancers of the cluster's Services are followed too when their name starts with this
   * (OCCM's `kube_service_<its --cluster-name>_`).
   * @default - none
   */
  readonly serviceLoadBalancerPrefix?: string;
  /** Docker image of the node stand-in for a server, by the name of the Glance image it boots. */
  readonly nodeImageFor: (glanceImageName: string) => string | undefined;
  /** Docker image of the amphora stand-in (build-workload-images' amphora=). */
  readonly amphoraImage: string;
  /** Where seeds go. */
  readonly workDir: string;
  readonly dockerHost: string;
  /** A short tag for container and network names (unique on the test dockerd). */
  readonly tag: string;
  readonly log: (line: string) => void;
}

/** One server the hypervisor booted. */
export interface BootedNode {
  readonly serverId: string;
  readonly serverName: string;
  readonly container: string;
  readonly address: string;
  readonly network: string;
  readonly image: string;
  /** Epoch ms when node-up was called, and when it returned. */
  readonly bootAt: number;
  readonly upAt: number;
  /** Epoch ms when its Node was first seen Ready. */
  readyAt?: number;
  podCidr?: string;
  /** The peer set node-cni was last run with ('' before). */
  cniKey: string;
}

export class WorkloadHypervisor {
  private readonly loop = new PollLoop(() => this.step());
  /** By server id. */
  readonly nodes = new Map<string, BootedNode>();
  /** Servers that went, by name: when their stand-in was removed. */
  readonly removed = new Map<string, number>();
  /** Docker networks made, by Neutron subnet id. */
  private readonly networks = new Map<string, string>();
  /** The amphorae of the cluster's load balancers. */
  readonly loadBalancers: LoadBalancerAmphorae;
  private workload: KubeClient | undefined;
  private reading: Promise<KubeClient | undefined> | undefined;
  readonly events: string[] = [];
  private readonly failures = new Map<string, number>();

  constructor(private readonly o: WorkloadHypervisorOptions) {
    const { admin, projectId, dockerHost, tag, amphoraImage, loadBalancerName, serviceLoadBalancerPrefix } = o;
    this.loadBalancers = new LoadBalancerAmphorae({ admin, projectId, dockerHost, tag, amphoraImage, apiLoadBalancerName: loadBalancerName, serviceLoadBalancerPrefix, networkOf: (subnet) => this.networkOf(subnet), note: (line) => this.note(line) });
  }

  get lastError(): string | undefined {
    return this.loop.lastError;
  }

  /** The API load balancer's amphora, once it stands at the VIP and the floating IP. */
  get amphora(): Amphora | undefined {
    return this.loadBalancers.api;
  }

  start(intervalMs = 2000): void {
    const services = this.o.serviceLoadBalancerPrefix ? ` and those named ${this.o.serviceLoadBalancerPrefix}…` : '';
    this.note(`watching the servers of ${this.o.namespace}/${this.o.cluster}, load balancer ${this.o.loadBalancerName}${services}`);
    this.loop.start(intervalMs);
  }

  /** Stops watching; removes every stand-in, the amphora and the networks it made. */
  async stop(): Promise<void> {
    await this.loop.stop();
    for (const n of this.nodes.values()) this.nodeDown(n.container);
    this.nodes.clear();
    this.loadBalancers.removeAll();
    for (const [subnet, network] of this.networks) {
      const r = runLocalVm(this.o.dockerHost, 'node-network-down', [network]);
      this.note(`node-network-down ${network} (subnet ${subnet}): exit ${r.code}`);
    }
    this.networks.clear();
  }

  /** The workload cluster's API through the floating IP, once CAPI wrote its kubeconfig. */
  async workloadClient(): Promise<KubeClient | undefined> {
    // one read at a time: the polling loop and the suite both ask
    this.reading ??= this.readWorkloadClient().finally(() => (this.reading = undefined));
    return this.workload ?? (await this.reading);
  }

  private async readWorkloadClient(): Promise<KubeClient | undefined> {
    if (this.workload) return this.workload;
    const r = await this.o.management.get(`/api/v1/namespaces/${this.o.namespace}/secrets/${this.o.cluster}-kubeconfig`);
    if (r.kind !== 'response' || r.status !== 200) return undefined;
    const text = Buffer.from((r.body as any).data.value, 'base64').toString('utf8');
    const c = credentialsFromKubeconfig(text, `Secret ${this.o.namespace}/${this.o.cluster}-kubeconfig`);
    this.workload = new KubeClient({ server: c.server, caPem: c.caPem, certPem: c.certPem, keyPem: c.keyPem, token: c.token, timeoutMs: 10_000 });
    this.note(`workload kubeconfig read: API ${c.server}`);
    return this.workload;
  }

  private note(line: string): void {
    const stamped = `${new Date().toISOString()} ${line}`;
    this.events.push(stamped);
    this.o.log(`hypervisor: ${line}`);
  }

  private async step(): Promise<void> {
    const listed = (await this.o.admin.compute<{ servers: any[] }>(`/servers/detail?all_tenants=1&project_id=${this.o.projectId}`, '2.3')).servers;
    const servers = listed.filter((s) => s.tenant_id === this.o.projectId && this.o.ownsServer(s));
    // gone servers first: nothing later in the step (a load balancer or network error) may keep a stand-in alive
    const present = new Set(servers.map((s) => s.id));
    for (const n of [...this.nodes.values()]) {
      if (present.has(n.serverId)) continue;
      this.note(`server ${n.serverName} (${n.serverId}) is gone: removing its stand-in ${n.container}`);
      this.nodeDown(n.container);
      this.nodes.delete(n.serverId);
      this.removed.set(n.serverName, Date.now());
    }
    // gone load balancers next, for the same reason
    const lbs = await this.loadBalancers.listRemovingGone();
    const lb = await this.loadBalancers.followApi(lbs);
    // the nodes reach the API at the floating IP through the amphora: boot them once it stands
    if (lb) {
      for (const s of servers) {
        if (s.status === 'ACTIVE' && !this.nodes.has(s.id)) await this.boot(s, lb);
      }
    }
    await this.followWorkload();
    // last: a Service's load balancer that cannot be followed holds up nothing of the cluster's own
    await this.loadBalancers.followServices(lbs);
  }

  /** The Docker network of a Neutron subnet (made once). */
  private async networkOf(subnetId: string): Promise<string> {
    const known = this.networks.get(subnetId);
    if (known) return known;
    const subnet = (await this.o.admin.network<{ subnet: any }>(`/subnets/${subnetId}`)).subnet;
    const name = `${this.o.tag}-${subnetId.slice(0, 8)}`;
    this.note(`subnet ${subnet.cidr} (${subnetId}): node-network-up ${name} ${subnet.cidr} ${subnet.gateway_ip}`);
    const r = runLocalVm(this.o.dockerHost, 'node-network-up', [name, subnet.cidr, subnet.gateway_ip]);
    if (r.code !== 0) throw new Error(`node-network-up ${name} failed (${r.code}): ${r.out.slice(-1500)}`);
    this.networks.set(subnetId, name);
    return name;
  }

  private async boot(server: any, lb: { vip: string; fip: string }): Promise<void> {
    const tries = this.failures.get(server.id) ?? 0;
    if (tries >= 3) return; // reported below; the suite sees the missing Node
    const userData = server['OS-EXT-SRV-ATTR:user_data'] as string | undefined;
    if (!userData) throw new Error(`server ${server.name} (${server.id}) has no user data (or the admin cannot read it)`);
    const port = (await this.o.admin.network<{ ports: any[] }>(`/ports?device_id=${server.id}`)).ports[0];
    if (!port?.fixed_ips?.length) return; // the port is listed a moment after ACTIVE
    const { ip_address: address, subnet_id: subnetId } = port.fixed_ips[0];
    const network = await this.networkOf(subnetId);
    const glanceName = server.image?.id ? (await this.o.admin.get<any>('image', `/v2/images/${server.image.id}`, { allow404: true }))?.name ?? '' : '';
    const image = this.o.nodeImageFor(glanceName);
    if (!image) throw new Error(`server ${server.name} boots Glance image "${glanceName}": no node stand-in image for it`);
    const container = `${this.o.tag}-${server.name}`.slice(0, 63);
    const seed = path.join(this.o.workDir, 'seeds', server.name);
    const bytes = writeNoCloudSeed(seed, userData, server.id, server.name);
    this.note(`server ${server.name} (${server.id}) ACTIVE at ${address}: node-up ${container} ${image} (user data ${bytes} bytes, route ${lb.fip}/32 via ${lb.vip})`);
    const bootAt = Date.now();
    const r = runLocalVm(this.o.dockerHost, 'node-up', [container, image, seed, network, address], { LOCAL_VM_NODE_ROUTES: `${lb.fip}/32=${lb.vip}` }, 300_000);
    if (r.code !== 0) {
      this.failures.set(server.id, tries + 1);
      this.nodeDown(container);
      throw new Error(`node-up ${container} failed (${r.code}, try ${tries + 1} of 3): ${r.out.slice(-1500)}`);
    }
    const node: BootedNode = { serverId: server.id, serverName: server.name, container, address, network, image, bootAt, upAt: Date.now(), cniKey: '' };
    this.nodes.set(server.id, node);
    this.note(`stand-in ${container} up after ${((node.upAt - bootAt) / 1000).toFixed(1)}s`);
  }

  /** Pod CIDRs and Ready of the workload's Nodes → the stand-in CNI and the Ready record. */
  private async followWorkload(): Promise<void> {
    if (this.nodes.size === 0) return;
    const client = await this.workloadClient();
    if (!client) return;
    const r = await client.get('/api/v1/nodes');
    if (r.kind !== 'response' || r.status !== 200) return; // not serving yet
    const items = (r.body as any).items as any[];
    const byServer = new Map<string, any>();
    for (const item of items) {
      const booted = [...this.nodes.values()].find((n) => item.spec?.providerID?.endsWith(n.serverId) || item.metadata.name === n.serverName);
      if (booted) byServer.set(booted.serverId, item);
    }
    for (const [id, item] of byServer) {
      const n = this.nodes.get(id)!;
      n.podCidr = item.spec?.podCIDR;
      const ready = (item.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
      if (ready && n.readyAt === undefined) {
        n.readyAt = Date.now();
        this.note(`Node ${item.metadata.name} Ready, ${((n.readyAt - n.bootAt) / 1000).toFixed(1)}s after its stand-in started`);
      }
    }
    const withCidr = [...this.nodes.values()].filter((n) => n.podCidr);
    for (const n of withCidr) {
      const peers = withCidr.filter((p) => p !== n).map((p) => `${p.podCidr}=${p.address}`).sort();
      const key = `${n.podCidr} ${peers.join(' ')}`;
      if (n.cniKey === key) continue;
      this.note(`node-cni ${n.container} ${key}`);
      const c = runLocalVm(this.o.dockerHost, 'node-cni', [n.container, n.podCidr!, ...peers]);
      if (c.code !== 0) throw new Error(`node-cni ${n.container} failed (${c.code}): ${c.out.slice(-1500)}`);
      n.cniKey = key;
    }
  }

  private nodeDown(container: string): void {
    const r = runLocalVm(this.o.dockerHost, 'node-down', [container]);
    if (r.code !== 0) this.note(`node-down ${container}: exit ${r.code}: ${r.out.slice(-500)}`);
  }

  /** Runs a command in a node stand-in (docker exec). */
  exec(container: string, argv: readonly string[], timeoutMs = 120_000): { code: number | null; out: string } {
    return testDocker(this.o.dockerHost, ['exec', container, ...argv], timeoutMs);
  }
}
