/**
 * What each machine replacement of a roll-out (an upgrade) took, per new Node: when Cluster API
 * created its Machine, when its server's stand-in booted, when its Node was first seen and Ready,
 * and when the Node of the same role it replaced was gone — in seconds since the roll-out started.
 */
import { BootedNode } from '../support/workload-hypervisor';
import { NodeVersionWatch } from './node-version-watch';

export interface NodeReplacement {
  readonly node: string;
  readonly role: 'control plane' | 'worker';
  readonly version: string;
  readonly machineCreatedS?: number;
  readonly standInBootS?: number;
  readonly nodeSeenS: number;
  readonly nodeReadyS?: number;
  /** Machine created → Node Ready: the replacement's own time. */
  readonly machineToReadyS?: number;
  /** Stand-in started → Node Ready: the boot, cloud-init and kubeadm join. */
  readonly bootToReadyS?: number;
  /** The Nodes of the same role that were there before the roll-out, and when they were gone. */
  readonly replaced: Readonly<Record<string, number | undefined>>;
}

export interface ReplacementInput {
  /** Epoch ms the roll-out started (the apply). */
  readonly startedAt: number;
  readonly watch: NodeVersionWatch;
  /** The Nodes there before the roll-out, by name. */
  readonly before: ReadonlySet<string>;
  readonly booted: readonly BootedNode[];
  /** The Machines on the management cluster (their nodeRefs name the Nodes). */
  readonly machines: readonly any[];
}

export function replacementTimes(i: ReplacementInput): NodeReplacement[] {
  const s = (t: number | undefined) => (t === undefined ? undefined : Math.round((t - i.startedAt) / 100) / 10);
  const d = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : Math.round((b - a) / 100) / 10);
  const records = [...i.watch.records.values()];
  const fresh = records.filter((r) => !i.before.has(r.name));
  return fresh.map((r) => {
    const machine = i.machines.find((m) => m.status?.nodeRef?.name === r.name);
    const created = machine?.metadata?.creationTimestamp ? Date.parse(machine.metadata.creationTimestamp) : undefined;
    const boot = i.booted.find((b) => b.serverName === r.name)?.bootAt;
    const replaced = records.filter((o) => o.controlPlane === r.controlPlane && i.before.has(o.name));
    return {
      node: r.name,
      role: r.controlPlane ? 'control plane' : 'worker',
      version: r.kubeletVersion,
      machineCreatedS: s(created),
      standInBootS: s(boot),
      nodeSeenS: s(r.firstSeenAt)!,
      nodeReadyS: s(r.readyAt),
      machineToReadyS: d(created, r.readyAt),
      bootToReadyS: d(boot, r.readyAt),
      replaced: Object.fromEntries(replaced.map((o) => [o.name, s(o.goneAt)])),
    };
  });
}

