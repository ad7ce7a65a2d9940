/**
 * The workload cluster's Nodes watched from inside while a Kubernetes upgrade rolls: each Node's
 * kubelet version (as the real kubelet reports it), when it was first seen, first Ready and gone.
 * A roll-out replaces machines, so a Node's "version change" is the moment a Node of the new
 * version became Ready (and one of the old went). Polls never overlap.
 */
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { isNodeReady } from '../support/booted-cluster';
import { PollLoop } from '../support/hypervisor-kit';

/** Whether a Node (by its name, the server's) is a control-plane machine's: CAPI names them `<cluster>-control-plane-…`. */
export const isControlPlaneName = (name: string): boolean => /-control-plane-/.test(name);

export interface NodeRecord {
  readonly name: string;
  readonly controlPlane: boolean;
  readonly kubeletVersion: string;
  /** Epoch ms. */
  readonly firstSeenAt: number;
  readyAt?: number;
  goneAt?: number;
}

export class NodeVersionWatch {
  private readonly loop = new PollLoop(() => this.step());
  readonly records = new Map<string, NodeRecord>();
  readonly startedAt = Date.now();

  constructor(private readonly workload: () => Promise<KubeClient>) {}

  get lastError(): string | undefined {
    return this.loop.lastError;
  }

  start(intervalMs = 2000): this {
    this.loop.start(intervalMs);
    return this;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async step(): Promise<void> {
    const r = await (await this.workload()).get('/api/v1/nodes');
    if (r.kind !== 'response' || r.status !== 200) return;
    const now = Date.now();
    const items = (r.body as any).items as any[];
    for (const n of items) {
      const name = n.metadata.name as string;
      let rec = this.records.get(name);
      if (!rec) {
        rec = { name, controlPlane: isControlPlaneName(name), kubeletVersion: n.status?.nodeInfo?.kubeletVersion ?? '', firstSeenAt: now };
        this.records.set(name, rec);
      }
      if (rec.readyAt === undefined && isNodeReady(n)) rec.readyAt = now;
    }
    const present = new Set(items.map((n) => n.metadata.name));
    for (const rec of this.records.values()) if (rec.goneAt === undefined && !present.has(rec.name)) rec.goneAt = now;
  }

  /** Seconds since the watch started, per Node: `{ version, seen, ready, gone }`. */
  timeline(): Record<string, { version: string; seenS: number; readyS?: number; goneS?: number }> {
    const s = (t: number | undefined) => (t === undefined ? undefined : Math.round((t - this.startedAt) / 100) / 10);
    return Object.fromEntries([...this.records.values()].map((r) => [r.name, { version: r.kubeletVersion, seenS: s(r.firstSeenAt)!, readyS: s(r.readyAt), goneS: s(r.goneAt) }]));
  }

  /**
   * Order problems of an upgrade to `to`: a worker Node of `to` seen before every control-plane Node
   * of `to` was Ready, or a control-plane Node of `to` never Ready. Empty when the order held.
   */
  orderProblems(to: string): string[] {
    const recs = [...this.records.values()].filter((r) => r.kubeletVersion === to);
    const cps = recs.filter((r) => r.controlPlane);
    if (cps.length === 0) return [`no control-plane Node reported ${to}`];
    const notReady = cps.filter((r) => r.readyAt === undefined).map((r) => `control-plane Node ${r.name} (${to}) never Ready`);
    if (notReady.length > 0) return notReady;
    const cpReady = Math.max(...cps.map((r) => r.readyAt!));
    return recs.filter((r) => !r.controlPlane && r.firstSeenAt <= cpReady).map((r) => `worker Node ${r.name} (${to}) seen ${((cpReady - r.firstSeenAt) / 1000).toFixed(1)}s before the control plane's last ${to} Node was Ready`);
  }
}
