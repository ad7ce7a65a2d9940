/**
 * Test tooling, not product: what the product's OpenStack cloud controller manager and the kubelet
 * serving-certificate approver (add-ons the Helm add-on provider cannot fetch here; issue 36)
 * would do for the Nodes of a booted workload cluster, done by hand and only that:
 * - OCCM's node initialisation: the Node's addresses (InternalIP = the server's fixed IP, Hostname)
 *   and the removal of the `node.cloudprovider.kubernetes.io/uninitialized` taint. A kubelet with
 *   `--cloud-provider=external` sets no addresses, and keeps those set for it;
 * - the approval of each kubelet's serving-certificate request (signer kubernetes.io/kubelet-serving,
 *   asked once the Node has addresses, with the product's serverTLSBootstrap) from a Node this
 *   cluster's servers run. kube-controller-manager signs it.
 * Without them the API server cannot reach a kubelet (it dials the Node's host name, and no
 * serving certificate answers), so KCP's etcd checks (a port-forward to the etcd pods) stay
 * Unknown and hold every control-plane roll-out, and nothing schedules onto tainted Nodes.
 */
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { UNINITIALIZED_NODE_TAINT } from '../../../lib/config/cloud-controller-warning';
import { PollLoop } from './hypervisor-kit';
import { ok } from './workload-kube';

const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';

export interface NodeInitStandInOptions {
  /** The workload cluster's API, once it has one. */
  readonly workload: () => Promise<KubeClient | undefined>;
  /** The fixed IP of the server a Node of that name runs on (undefined: not one of ours). */
  readonly addressOf: (nodeName: string) => string | undefined;
  readonly log: (line: string) => void;
}

export class NodeInitStandIn {
  private readonly loop = new PollLoop(() => this.step());
  /** Node name → what was done to it, with the time. */
  readonly initialised = new Map<string, number>();
  readonly approved = new Map<string, number>();

  constructor(private readonly o: NodeInitStandInOptions) {}

  get lastError(): string | undefined {
    return this.loop.lastError;
  }

  start(intervalMs = 3000): void {
    this.loop.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async step(): Promise<void> {
    const w = await this.o.workload();
    if (!w) return;
    const r = await w.get('/api/v1/nodes');
    if (r.kind !== 'response' || r.status !== 200) return;
    for (const n of (r.body as any).items as any[]) await this.initialise(w, n);
    await this.approve(w);
  }

  private async initialise(w: KubeClient, n: any): Promise<void> {
    const name: string = n.metadata.name;
    const address = this.o.addressOf(name);
    if (!address) return;
    const addressed = (n.status?.addresses ?? []).some((a: any) => a.type === 'InternalIP' && a.address === address);
    if (!addressed) {
      const addresses = [{ type: 'InternalIP', address }, { type: 'Hostname', address: name }];
      ok(await w.request('PATCH', `/api/v1/nodes/${name}/status`, { status: { addresses } }), `setting the addresses of Node ${name}`, [200]);
    }
    const taints = (n.spec?.taints ?? []) as any[];
    if (taints.some((t) => t.key === UNINITIALIZED_NODE_TAINT)) {
      const kept = taints.filter((t) => t.key !== UNINITIALIZED_NODE_TAINT);
      ok(await w.request('PATCH', `/api/v1/nodes/${name}`, { spec: { taints: kept.length ? kept : null } }), `untainting Node ${name}`, [200]);
    }
    if (!this.initialised.has(name)) {
      this.initialised.set(name, Date.now());
      this.o.log(`node-init stand-in: Node ${name} at ${address}, ${UNINITIALIZED_NODE_TAINT} removed`);
    }
  }

  private async approve(w: KubeClient): Promise<void> {
    const r = await w.get('/apis/certificates.k8s.io/v1/certificatesigningrequests');
    if (r.kind !== 'response' || r.status !== 200) return;
    for (const csr of (r.body as any).items as any[]) {
      if (csr.spec.signerName !== KUBELET_SERVING || (csr.status?.conditions ?? []).length > 0) continue;
      const node = /^system:node:(.+)$/.exec(csr.spec.username ?? '')?.[1];
      if (!node || !this.o.addressOf(node)) continue;
      const conditions = [{ type: 'Approved', status: 'True', reason: 'E2eStandIn', message: 'approved by the e2e suite standing in for the serving-certificate approver add-on' }];
      ok(await w.request('PUT', `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csr.metadata.name}/approval`, { ...csr, status: { ...csr.status, conditions } }), `approving CSR ${csr.metadata.name}`, [200, 201]);
      this.approved.set(node, Date.now());
      this.o.log(`node-init stand-in: kubelet serving certificate of ${node} approved (${csr.metadata.name})`);
    }
  }
}
