/**
 * The apply-time half of the ordered Kubernetes upgrade (lib/kube/control-plane-upgrade-gate): waits
 * until a KubeadmControlPlane reports the target version on all its machines, so the node groups
 * move only after it. Pure evaluation over what the API returns, plus a bounded poll with injectable
 * clock and sleep.
 */
import { formatDuration } from './wait';
import { KubeClient } from './kube-client';
import type { KubeResponse } from './checks';

export interface ControlPlaneTarget {
  readonly namespace: string;
  readonly name: string;
  /** Exact version, e.g. `v1.37.2`. */
  readonly version: string;
}

export interface ControlPlaneObservation {
  /** `new`: no machine yet (a cluster being created: nothing to order); `rolling`: not there yet. */
  readonly phase: 'new' | 'rolling' | 'done';
  /** One line for the operator: what the control plane reports. */
  readonly summary: string;
}

interface KcpLike {
  metadata?: { generation?: number };
  spec?: { version?: string; replicas?: number };
  status?: { version?: string; observedGeneration?: number; replicas?: number; upToDateReplicas?: number };
}
interface MachineLike {
  metadata?: { name?: string; deletionTimestamp?: string };
  spec?: { version?: string };
}

/** Where the KubeadmControlPlane and its Machines are read (Cluster API v1beta2). */
export function controlPlanePaths(t: ControlPlaneTarget): { kcp: string; machines: string } {
  const ns = encodeURIComponent(t.namespace);
  return {
    kcp: `/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/${ns}/kubeadmcontrolplanes/${encodeURIComponent(t.name)}`,
    machines: `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines?labelSelector=${encodeURIComponent(`cluster.x-k8s.io/control-plane-name=${t.name}`)}`,
  };
}

/**
 * Done when the KubeadmControlPlane has observed its current spec, asks for `version`, reports it as
 * its (minimum) version, every replica is up to date, and each of its machines — exactly
 * `spec.replicas` of them, none being deleted — runs `version`.
 */
export function evaluateControlPlane(kcp: unknown, machines: readonly unknown[], t: ControlPlaneTarget): ControlPlaneObservation {
  const k = (kcp ?? {}) as KcpLike;
  const where = `KubeadmControlPlane ${t.namespace}/${t.name}`;
  const list = machines as readonly MachineLike[];
  if (k.spec?.version !== t.version) return { phase: 'rolling', summary: `${where} asks for ${k.spec?.version ?? 'no version'}, expected ${t.version} (was it changed by another apply?)` };
  if (list.length === 0 && !k.status?.version) return { phase: 'new', summary: `${where} has no machine yet: a new control plane, nothing to wait for` };
  const wanted = k.spec.replicas ?? 1;
  const at = list.filter((m) => m.spec?.version === t.version && !m.metadata?.deletionTimestamp);
  const others = list.filter((m) => !at.includes(m)).map((m) => `${m.metadata?.name ?? '?'} at ${m.spec?.version ?? '?'}${m.metadata?.deletionTimestamp ? ' (deleting)' : ''}`);
  const observed = (k.status?.observedGeneration ?? 0) >= (k.metadata?.generation ?? 0);
  const summary =
    `${where}: ${at.length} of ${wanted} machines at ${t.version}, status.version ${k.status?.version ?? 'unset'}, ` +
    `${k.status?.upToDateReplicas ?? 0} of ${wanted} up to date${others.length ? `; still: ${others.join(', ')}` : ''}${observed ? '' : '; status not yet observed'}`;
  const done = observed && k.status?.version === t.version && at.length === wanted && others.length === 0 && (k.status?.upToDateReplicas ?? 0) >= wanted;
  return { phase: done ? 'done' : 'rolling', summary };
}

export interface ControlPlaneWaitOptions {
  readonly client: Pick<KubeClient, 'get'>;
  readonly target: ControlPlaneTarget;
  /** @default 60 minutes */
  readonly timeoutMs?: number;
  /** @default 15 s */
  readonly intervalMs?: number;
  /** A progress line about this often. @default 60 s */
  readonly progressEveryMs?: number;
  readonly log?: (line: string) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export class ControlPlaneTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlPlaneTimeoutError';
  }
}

/** Polls until {@link evaluateControlPlane} says `new` or `done`; throws {@link ControlPlaneTimeoutError} with the last observation. */
export async function waitForControlPlane(o: ControlPlaneWaitOptions): Promise<ControlPlaneObservation> {
  const timeoutMs = o.timeoutMs ?? 60 * 60_000;
  const log = o.log ?? ((line: string) => console.log(line));
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const paths = controlPlanePaths(o.target);
  const start = now();
  let lastProgress = -Infinity;
  log(`control plane: waiting up to ${formatDuration(timeoutMs)} for KubeadmControlPlane ${o.target.namespace}/${o.target.name} to run ${o.target.version} on all its machines before the node groups move`);
  for (;;) {
    const observation = await observe(o.client, paths, o.target);
    const elapsed = now() - start;
    if (observation.phase !== 'rolling') {
      log(`control plane: ${observation.phase === 'new' ? observation.summary : `${o.target.version} on all machines after ${formatDuration(elapsed)}; the node groups move now`}`);
      return observation;
    }
    if (elapsed >= timeoutMs) {
      throw new ControlPlaneTimeoutError(`control plane not at ${o.target.version} after ${formatDuration(elapsed)} (timeout ${formatDuration(timeoutMs)}): ${observation.summary}; the node groups keep their version until it is`);
    }
    if (now() - lastProgress >= (o.progressEveryMs ?? 60_000)) {
      lastProgress = now();
      log(`control plane: ${formatDuration(elapsed)} of ${formatDuration(timeoutMs)} — ${observation.summary}`);
    }
    await sleep(Math.min(o.intervalMs ?? 15_000, timeoutMs - elapsed));
  }
}

async function observe(client: Pick<KubeClient, 'get'>, paths: { kcp: string; machines: string }, t: ControlPlaneTarget): Promise<ControlPlaneObservation> {
  const [kcp, machines] = await Promise.all([client.get(paths.kcp), client.get(paths.machines)]);
  if (kcp.kind === 'error' || kcp.status !== 200) return { phase: 'rolling', summary: failure(kcp, `KubeadmControlPlane ${t.namespace}/${t.name}`) };
  if (machines.kind === 'error' || machines.status !== 200) return { phase: 'rolling', summary: failure(machines, `the machines of ${t.namespace}/${t.name}`) };
  const items = (machines.body as { items?: unknown[] } | null)?.items ?? [];
  return evaluateControlPlane(kcp.body, items, t);
}

function failure(r: KubeResponse, what: string): string {
  if (r.kind === 'error') return `cannot read ${what}: ${r.reason}`;
  const message = (r.body as { message?: unknown } | null)?.message;
  return `reading ${what}: HTTP ${r.status}${typeof message === 'string' ? ` ${message}` : ''}`;
}
