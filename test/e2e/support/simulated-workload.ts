/**
 * The data plane of a workload cluster on the local cloud, where Nova's fake driver boots nothing:
 *
 * - a real kube-apiserver per workload cluster on 127.0.0.1 (local-kube's binary and etcd, its
 *   own etcd prefix), serving with a certificate of the cluster CA that KCP generated, and trusting
 *   that CA for clients; the cluster's kubeconfig Secret (written by KCP for the floating IP,
 *   which nothing answers on here) is repointed at it, so the Cluster API controllers talk to a
 *   real API server about this cluster;
 * - what kubeadm and the kubelets would write there: a Node per Machine whose server exists
 *   (providerID, Ready, control-plane label, kubelet version), the control plane's static-pod
 *   mirrors, and the kubeadm-config ConfigMap that `kubeadm init` uploads (what KCP takes as
 *   "control plane initialized");
 * - a real etcd member per control-plane Node (simulated-etcd.ts) and a kubelet stand-in that all
 *   Nodes point at (kubelet-standin.ts), so that KCP's etcd checks through pods/portforward of
 *   `etcd-<node>` reach that member; a member stops once KCP removed it or its Machine is gone.
 *
 * Everything the controllers decide stays theirs; this only answers in place of the machines.
 */
import { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { KubeletStandin } from './kubelet-standin';
import { workloadApiServerFlags } from './workload-apiserver-flags';
import { issueCertificate, writeCa } from './local-pki';
import { freePort, startLogged, stopProcess } from './local-process';
import { SimulatedEtcd } from './simulated-etcd';
import { ok, waitFor } from './workload-kube';

export interface SimulatedWorkloadOptions {
  /** Admin client of the management cluster (local-kube). */
  readonly management: KubeClient;
  readonly namespace: string;
  readonly cluster: string;
  /** local-kube's bin directory (kube-apiserver, etcd, kubelet-standin). */
  readonly kubeBinDir: string;
  /** local-kube's etcd client URL. */
  readonly etcdUrl: string;
  /** Where certificates, etcd members' data and the processes' logs go. */
  readonly dir: string;
  readonly log: (line: string) => void;
}

const CP_LABEL = 'cluster.x-k8s.io/control-plane';
const STATIC_PODS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
const CAPI = '/apis/cluster.x-k8s.io/v1beta2';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

export class SimulatedWorkloadCluster {
  private apiserver?: ChildProcess;
  private etcd?: SimulatedEtcd;
  private standin?: KubeletStandin;
  private client?: KubeClient;
  private loop?: Promise<void>;
  private stopping = false;
  /** Nodes created so far, by name (the suite reads them). */
  readonly nodes = new Set<string>();
  server = '';

  private constructor(private readonly o: SimulatedWorkloadOptions) {}

  /**
   * Waits for KCP's certificates and kubeconfig of the cluster, starts its API server and the node
   * loop. Resolves once the kubeconfig Secret points at the local API server.
   */
  static async start(o: SimulatedWorkloadOptions, timeoutMs = 10 * 60_000): Promise<SimulatedWorkloadCluster> {
    const sim = new SimulatedWorkloadCluster(o);
    await sim.startApiServer(timeoutMs);
    sim.loop = sim.nodeLoop();
    return sim;
  }

  private secretPath(name: string): string {
    return `/api/v1/namespaces/${this.o.namespace}/secrets/${this.o.cluster}-${name}`;
  }

  private async secret(name: string, timeoutMs: number): Promise<Record<string, string>> {
    const s = await waitFor(`Secret ${this.o.namespace}/${this.o.cluster}-${name} (written by KCP)`, timeoutMs, async () => {
      const r = await this.o.management.get(this.secretPath(name));
      return r.kind === 'response' && r.status === 200 ? (r.body as any) : undefined;
    }, 1_000);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, unb64(v)]));
  }

  private async startApiServer(timeoutMs: number): Promise<void> {
    const { dir, cluster } = this.o;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const ca = await this.secret('ca', timeoutMs);
    const sa = await this.secret('sa', timeoutMs);
    const kubeconfigSecret = await this.secret('kubeconfig', timeoutMs);
    const clusterCa = writeCa(dir, 'ca', ca);
    const etcdCa = writeCa(dir, 'etcd-ca', await this.secret('etcd', timeoutMs));
    fs.writeFileSync(path.join(dir, 'sa.key'), sa['tls.key'], { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'sa.pub'), sa['tls.crt']);
    // serving certificate of the cluster CA for 127.0.0.1 (what kubeadm would make for the node)
    const serving = issueCertificate(dir, 'apiserver', clusterCa, '/CN=kube-apiserver', 'server');
    this.etcd = new SimulatedEtcd({ binDir: this.o.kubeBinDir, dir: path.join(dir, 'etcd'), ca: etcdCa, token: `${this.o.namespace}-${cluster}`, log: this.o.log });
    this.standin = await KubeletStandin.start(this.o.kubeBinDir, path.join(dir, 'kubelet'), clusterCa);

    await this.wipeEtcdPrefix(); // a Node of an earlier run with the same names must not come back
    const port = await freePort();
    this.server = `https://127.0.0.1:${port}`;
    this.apiserver = startLogged(
      path.join(this.o.kubeBinDir, 'kube-apiserver'),
      [
        ...workloadApiServerFlags({ etcdUrl: this.o.etcdUrl, etcdPrefix: this.etcdPrefix, port, servingCert: serving.cert, servingKey: serving.key, clientCaCert: clusterCa.cert, dir }),
        // pods/portforward (KCP's way to etcd) goes to the kubelet stand-in
        ...this.standin.apiServerFlags(),
      ],
      path.join(dir, 'kube-apiserver.log'),
    );

    // the kubeconfig KCP wrote (cluster CA, admin client certificate), pointed at this server
    const kubeconfig = parse(kubeconfigSecret.value);
    const user = kubeconfig.users[0].user;
    this.client = new KubeClient({
      server: this.server,
      caPem: ca['tls.crt'],
      certPem: unb64(user['client-certificate-data']),
      keyPem: unb64(user['client-key-data']),
      timeoutMs: 10_000,
    });
    await waitFor(`the simulated API server of ${cluster} (${this.server}) to be ready`, 120_000, async () => {
      if (this.apiserver?.exitCode !== null) throw new Error(`kube-apiserver of ${cluster} exited (${this.apiserver?.exitCode}); see ${path.join(dir, 'kube-apiserver.log')}`);
      const r = await this.client!.get('/readyz');
      return r.kind === 'response' && r.status === 200 ? true : undefined;
    }, 500);
    const original = kubeconfig.clusters[0].cluster.server;
    kubeconfig.clusters[0].cluster.server = this.server;
    ok(
      await this.o.management.request('PATCH', this.secretPath('kubeconfig'), { data: { value: b64(stringify(kubeconfig)) } }),
      `repointing the kubeconfig Secret of ${cluster}`,
      [200],
    );
    this.o.log(`simulated workload API server of ${cluster}: ${this.server} (kubeconfig Secret was ${original})`);
    // the namespace's default ServiceAccount (no controller manager here) for the static-pod mirrors
    await this.ensure('/api/v1/namespaces/kube-system/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'kube-system' } });
  }

  /** Creates `obj` under `collection` unless it exists. */
  private async ensure(collection: string, obj: any): Promise<boolean> {
    const r = await this.client!.request('POST', collection, obj);
    if (r.kind === 'response' && (r.status === 201 || r.status === 409)) return r.status === 201;
    throw new Error(`creating ${obj.kind} ${obj.metadata.name} in the workload cluster: ${r.kind === 'response' ? `${r.status} ${JSON.stringify(r.body).slice(0, 300)}` : r.reason}`);
  }

  private async nodeLoop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.reconcileNodes();
      } catch (e) {
        this.o.log(`node simulation of ${this.o.cluster}: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  private async reconcileNodes(): Promise<void> {
    const list = await this.o.management.get(`${CAPI}/namespaces/${this.o.namespace}/machines?labelSelector=${encodeURIComponent(`cluster.x-k8s.io/cluster-name=${this.o.cluster}`)}`);
    if (list.kind !== 'response' || list.status !== 200) return;
    const machines: any[] = (list.body as any).items;
    for (const m of machines) {
      if (m.metadata.deletionTimestamp || !m.spec.providerID) continue;
      const name: string = m.metadata.name;
      const controlPlane = m.metadata.labels?.[CP_LABEL] !== undefined;
      if (!this.nodes.has(name)) {
        await this.createNode(name, m, controlPlane);
        this.nodes.add(name);
      }
    }
    await this.stopGoneMembers(new Set(machines.map((m) => m.metadata.name)));
  }

  /** Stops the etcd members that KCP removed from the cluster or whose Machine is gone. */
  private async stopGoneMembers(machines: Set<string>): Promise<void> {
    // without quorum (a member whose Machine went without KCP removing it) nothing lists members
    const removed = new Set(await this.etcd!.removedMembers().catch(() => []));
    for (const name of this.etcd!.names()) {
      if (machines.has(name) && !removed.has(name)) continue;
      for (const pod of [`etcd-${name}`, `kube-apiserver-${name}`]) this.standin!.setPod(`kube-system/${pod}`, undefined);
      await this.etcd!.stopMember(name);
      this.o.log(`etcd member ${name} of ${this.o.cluster} stopped (${removed.has(name) ? 'removed from the etcd cluster' : 'Machine gone'})`);
    }
  }

  private async createNode(name: string, machine: any, controlPlane: boolean): Promise<void> {
    const version: string = machine.spec.version;
    const created = await this.ensure('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}) } },
      // kubeadm taints control-plane nodes; KCP's NodeKubeadmLabelsAndTaintsSet (part of Machine Ready) checks it
      spec: { providerID: machine.spec.providerID, ...(controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}) },
    });
    const now = new Date().toISOString();
    // the API server reaches the node's "kubelet" (the stand-in) at its InternalIP and daemon port
    const { addresses, daemonEndpoints } = this.standin!.nodeStatus();
    ok(
      await this.client!.request('PATCH', `/api/v1/nodes/${name}/status`, {
        status: {
          // what a healthy kubelet reports (CAPI's NodeHealthy reads all four)
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated kubelet (local test cloud)', lastHeartbeatTime: now, lastTransitionTime: now },
            ...['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ type, status: 'False', reason: `KubeletHasNo${type}`, message: 'simulated', lastHeartbeatTime: now, lastTransitionTime: now })),
          ],
          addresses: [...addresses, { type: 'Hostname', address: name }],
          daemonEndpoints,
          nodeInfo: { kubeletVersion: version, kubeProxyVersion: version, containerRuntimeVersion: 'containerd://2.1.0', operatingSystem: 'linux', architecture: 'amd64', osImage: 'simulated', kernelVersion: '6.1.0', machineID: '', systemUUID: '', bootID: '' },
        },
      }),
      `setting Node ${name} Ready`,
      [200],
    );
    this.o.log(`node ${name} ${created ? 'registered' : 'already there'} (${controlPlane ? 'control plane' : 'worker'}, ${machine.spec.providerID})`);
    if (!controlPlane) return;
    // the node's etcd member (`kubeadm join` adds it before its static pod starts)
    await this.etcd!.addMember(name);
    this.standin!.setPod(`kube-system/etcd-${name}`, this.etcd!.clientAddress(name));
    // KCP reads the API server certificate's expiry through pods/portforward of kube-apiserver-<node>
    this.standin!.setPod(`kube-system/kube-apiserver-${name}`, new URL(this.server).host);
    for (const component of STATIC_PODS) await this.mirrorPod(component, name, version);
    // what `kubeadm init` uploads; KCP reads it as "control plane initialized"
    await this.ensure('/api/v1/namespaces/kube-system/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kubeadm-config', namespace: 'kube-system' },
      data: {
        ClusterConfiguration: stringify({
          apiVersion: 'kubeadm.k8s.io/v1beta4',
          kind: 'ClusterConfiguration',
          kubernetesVersion: version,
          controlPlaneEndpoint: '',
          certificatesDir: '/etc/kubernetes/pki',
          imageRepository: 'registry.k8s.io',
          networking: { dnsDomain: 'cluster.local', serviceSubnet: '10.96.0.0/12' },
          etcd: { local: { dataDir: '/var/lib/etcd' } },
        }),
      },
    });
  }

  private async mirrorPod(component: string, node: string, version: string): Promise<void> {
    const name = `${component}-${node}`;
    await this.ensure('/api/v1/namespaces/kube-system/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'kube-system', labels: { component, tier: 'control-plane' }, annotations: { 'kubernetes.io/config.mirror': 'simulated', 'kubernetes.io/config.source': 'file' } },
      spec: { nodeName: node, priorityClassName: undefined, containers: [{ name: component, image: `registry.k8s.io/${component}:${component === 'etcd' ? '3.6.5-0' : version}` }] },
    });
    const now = new Date().toISOString();
    ok(
      await this.client!.request('PATCH', `/api/v1/namespaces/kube-system/pods/${name}/status`, {
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }, { type: 'PodScheduled', status: 'True', lastTransitionTime: now }], startTime: now },
      }),
      `setting Pod ${name} Running`,
      [200],
    );
  }

  private get etcdPrefix(): string {
    return `/simulated-workload/${this.o.namespace}/${this.o.cluster}`;
  }

  /** Deletes every key of this cluster's API server from local-kube's etcd (its v3 JSON gateway). */
  private async wipeEtcdPrefix(): Promise<void> {
    const key = `${this.etcdPrefix}/`;
    const end = key.slice(0, -1) + String.fromCharCode(key.charCodeAt(key.length - 1) + 1);
    const r = await fetch(`${this.o.etcdUrl}/v3/kv/deleterange`, { method: 'POST', body: JSON.stringify({ key: b64(key), range_end: b64(end) }) });
    if (!r.ok) throw new Error(`deleting ${key} from etcd failed: ${r.status} ${await r.text()}`);
  }

  /** Stops the node loop, the API server, the etcd members and the kubelet stand-in; deletes what they stored. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
    await stopProcess(this.apiserver);
    await this.etcd?.stop();
    await this.standin?.stop();
    await this.wipeEtcdPrefix();
  }
}
