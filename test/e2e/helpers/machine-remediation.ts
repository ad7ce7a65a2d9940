/**
 * A MachineHealthCheck remediation watched while it happens on a booted workload cluster: after a
 * worker's stand-in was stopped, one loop records when its Node stopped being Ready, when the MHC
 * marked its Machine (HealthCheckSucceeded False), when the Machine and its stand-in were gone, and
 * when a new Node of the node group joined Ready and the cluster was whole again. Returns the
 * moments, in seconds since the stop.
 */
import { BootedCluster, isNodeReady } from '../support/booted-cluster';
import { testDocker } from '../support/hypervisor-kit';
import { BootedNode } from '../support/workload-hypervisor';
import { getObject, waitFor } from '../support/workload-kube';

const CAPI = 'cluster.x-k8s.io/v1beta2';
const HEALTH_CHECK_SUCCEEDED = 'HealthCheckSucceeded';

export interface RemediationWatch {
  /** When the stand-in was stopped (epoch ms). */
  readonly stoppedAt: number;
  readonly machine: string;
  readonly node: string;
  /** The cluster's Machines and the workload's Nodes. */
  readonly machines: () => Promise<any[]>;
  readonly nodes: () => Promise<any[]>;
  /** Whether the hypervisor has removed the stand-in of the server of that name. */
  readonly standInRemoved: () => boolean;
  /** Node names of the node group the replacement belongs to. */
  readonly inGroup: (nodeName: string) => boolean;
  /** Ready Nodes the cluster has when whole. */
  readonly wholeCount: number;
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}

export interface RemediationSeen {
  readonly nodeNotReadyS: number;
  readonly markedUnhealthyS: number;
  /** HealthCheckSucceeded's reason and message when it went False. */
  readonly markedReason: string;
  readonly machineGoneS: number;
  readonly standInRemovedS: number;
  readonly replacementNode: string;
  readonly replacementMachine: string;
  /** When the new Node was first seen Ready, and when the cluster was whole again (old Machine, Node and stand-in gone). */
  readonly replacementReadyS: number;
  readonly wholeAgainS: number;
}

export async function watchRemediation(w: RemediationWatch): Promise<RemediationSeen> {
  const since = () => Math.round((Date.now() - w.stoppedAt) / 100) / 10;
  const seen: Partial<Record<'nodeNotReadyS' | 'markedUnhealthyS' | 'machineGoneS' | 'standInRemovedS' | 'replacementReadyS' | 'wholeAgainS', number>> = {};
  let markedReason = '';
  let last = '';
  for (;;) {
    if (Date.now() - w.stoppedAt > w.timeoutMs) throw new Error(`remediation of ${w.machine} not done after ${w.timeoutMs / 60_000} min; seen ${JSON.stringify(seen)}; last: ${last}`);
    const [machines, nodes] = await Promise.all([w.machines(), w.nodes().catch(() => [] as any[])]);
    const old = machines.find((m) => m.metadata.name === w.machine);
    const oldNode = nodes.find((n) => n.metadata.name === w.node);
    if (seen.nodeNotReadyS === undefined && oldNode && !isNodeReady(oldNode)) seen.nodeNotReadyS = since();
    const check = (old?.status?.conditions ?? []).find((c: any) => c.type === HEALTH_CHECK_SUCCEEDED);
    if (seen.markedUnhealthyS === undefined && check?.status === 'False') {
      seen.markedUnhealthyS = since();
      markedReason = `${check.reason}: ${check.message ?? ''}`;
    }
    if (seen.machineGoneS === undefined && !old) seen.machineGoneS = since();
    if (seen.standInRemovedS === undefined && w.standInRemoved()) seen.standInRemovedS = since();
    const fresh = nodes.filter((n) => n.metadata.name !== w.node && w.inGroup(n.metadata.name) && Date.parse(n.metadata.creationTimestamp) >= w.stoppedAt - 1000);
    const replacement = fresh.find(isNodeReady);
    if (seen.replacementReadyS === undefined && replacement) seen.replacementReadyS = since();
    const whole = nodes.filter(isNodeReady).length === w.wholeCount && !oldNode;
    const owner = replacement && machines.find((m) => m.status?.nodeRef?.name === replacement.metadata.name);
    const line = `old Node ${oldNode ? (isNodeReady(oldNode) ? 'Ready' : 'not Ready') : 'gone'}, old Machine ${old ? `${old.status?.phase}${old.metadata.deletionTimestamp ? ' (deleting)' : ''}, ${HEALTH_CHECK_SUCCEEDED}=${check?.status ?? '-'}` : 'gone'}; new Nodes ${fresh.map((n) => `${n.metadata.name}${isNodeReady(n) ? ' Ready' : ''}`).join(', ') || '-'}`;
    if (line !== last) w.log(`remediation ${since()}s: ${line}`);
    last = line;
    if (replacement && whole && owner && seen.machineGoneS !== undefined && seen.standInRemovedS !== undefined) {
      return {
        nodeNotReadyS: seen.nodeNotReadyS ?? -1,
        markedUnhealthyS: seen.markedUnhealthyS ?? -1,
        markedReason,
        machineGoneS: seen.machineGoneS,
        standInRemovedS: seen.standInRemovedS,
        replacementNode: replacement.metadata.name,
        replacementMachine: owner.metadata.name,
        replacementReadyS: seen.replacementReadyS!,
        wholeAgainS: since(),
      };
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

/**
 * Stops the stand-in of the first worker of a booted cluster (1 control plane, 2 workers of md-0:
 * 3 Nodes when whole) as a dead host would stop, and watches its remediation until the cluster is
 * whole again.
 */
export async function stopWorkerAndWatchRemediation(run: BootedCluster, o: { readonly dockerHost: string; readonly timeoutMs: number; readonly log: (line: string) => void }): Promise<{ victim: BootedNode; machine: string; seen: RemediationSeen }> {
  const victim = run.workerNodes()[0];
  const machine = (await run.list(CAPI, 'machines')).find((m) => m.status?.nodeRef?.name === victim.serverName)?.metadata.name as string | undefined;
  if (!machine) throw new Error(`no Machine has the Node ${victim.serverName}`);
  const stoppedAt = Date.now();
  const stopped = testDocker(o.dockerHost, ['stop', victim.container]);
  if (stopped.code !== 0) throw new Error(`docker stop ${victim.container} failed (${stopped.code}): ${stopped.out}`);
  o.log(`stopped the stand-in ${victim.container} of Machine ${machine}`);
  const seen = await watchRemediation({
    stoppedAt,
    machine,
    node: victim.serverName,
    machines: () => run.list(CAPI, 'machines'),
    nodes: () => run.nodes(),
    standInRemoved: () => run.hypervisor!.removed.has(victim.serverName),
    inGroup: (name) => /-md-0-/.test(name),
    wholeCount: 3,
    timeoutMs: o.timeoutMs,
    log: o.log,
  });
  return { victim, machine, seen };
}

/**
 * The workload-nodes suite's remediation check: the workers' MHC (the product's default limit, one
 * machine of two) replaces a worker whose stand-in stopped; the MHC marked it before it went, its
 * stand-in is gone, the replacement joined from the product's user data and both count healthy.
 */
export async function expectDefaultMhcRemediates(
  run: BootedCluster,
  o: { readonly cluster: string; readonly dockerHost: string; readonly unhealthyAfterMinutes: number; readonly log: (line: string) => void },
): Promise<{ seen: RemediationSeen; finding: string }> {
  const mhcName = { apiVersion: CAPI, kind: 'MachineHealthCheck', name: `${o.cluster}-workers`, namespace: run.namespace };
  const bothHealthy = (what: string) => waitFor(`the workers' MachineHealthCheck to see both workers healthy ${what}`, 3 * 60_000, async () => getObject(run.client, mhcName).then((m) => (m?.status?.currentHealthy === 2 ? m : undefined)), 3_000);
  const mhc = await bothHealthy('before');
  expect({ triggerIf: mhc.spec.remediation.triggerIf, expected: mhc.status.expectedMachines }).toEqual({ triggerIf: { unhealthyLessThanOrEqualTo: 1 }, expected: 2 });
  const { victim, seen } = await stopWorkerAndWatchRemediation(run, { dockerHost: o.dockerHost, timeoutMs: 20 * 60_000, log: o.log });
  o.log(`remediation (s since the stop): ${JSON.stringify(seen)}`);
  // the MHC, not something else, took the machine: it marked it before it went
  expect(seen.nodeNotReadyS).toBeGreaterThan(0);
  expect(seen.markedUnhealthyS).toBeGreaterThan(seen.nodeNotReadyS);
  expect(seen.markedUnhealthyS).toBeLessThanOrEqual(seen.machineGoneS);
  // the stand-in went with its server; the replacement booted from the product's user data and joined
  expect(testDocker(o.dockerHost, ['ps', '-a', '-q', '--filter', `name=^${victim.container}$`]).out.trim()).toBe('');
  const replacement = run.booted().find((b) => b.serverName === seen.replacementNode);
  expect(replacement).toBeDefined();
  expect(run.onNode(replacement!, ['cat', '/var/log/cloud-init-output.log']).out).toContain('This node has joined the cluster');
  await bothHealthy('again');
  const finding = `MHC remediation (unhealthyAfterMinutes ${o.unhealthyAfterMinutes}, the default maxUnhealthyPercent → unhealthyLessThanOrEqualTo 1): Node not Ready ${seen.nodeNotReadyS}s after the stop, marked ${seen.markedUnhealthyS}s (${seen.markedReason.replace(/\s*\n\s*\*?\s*/g, ' ')}), Machine gone ${seen.machineGoneS}s, replacement ${seen.replacementNode} Ready ${seen.replacementReadyS}s`;
  return { seen, finding };
}
