/**
 * A minor Kubernetes upgrade of a running workload cluster, watched while it happens: the apply
 * (which the ControlPlaneUpgrade gate holds until the control plane has the new version on all its
 * machines) runs beside a poll of the management cluster's KubeadmControlPlane, MachineDeployment
 * and Machines (with the Node versions Cluster API copies from the workload cluster), so the test
 * can say in which order things moved and whether a Node was ever newer than the control plane.
 */
import { comparePatch } from '../../../lib/config/versions';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { RunResult } from '../support/workload-process';

const CAPI = 'cluster.x-k8s.io/v1beta2';
const KCP = 'controlplane.cluster.x-k8s.io/v1beta2';
const CP_LABEL = 'cluster.x-k8s.io/control-plane';

export interface UpgradeWatch {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly cluster: string;
  readonly from: string;
  readonly to: string;
  /** Starts the apply of the upgrade plan; the watch runs until it ended and every machine runs `to`. */
  readonly apply: () => Promise<RunResult>;
  readonly log: (line: string) => void;
  readonly timeoutMs: number;
}

export interface UpgradeObservation {
  readonly apply: RunResult;
  /** Seconds from the apply's start until all control-plane machines ran `to` and KCP said so. */
  readonly controlPlaneDoneS: number;
  /** Seconds from the apply's start until the MachineDeployment's template named `to` (undefined: never). */
  readonly workersStartedS?: number;
  /** Seconds from the apply's start until every worker Machine ran `to`. */
  readonly workersDoneS: number;
  /** Polls, and every moment a worker Node reported a newer kubelet than the oldest control-plane Node. */
  readonly polls: number;
  readonly skewViolations: readonly string[];
  /** The MachineDeployment template versions seen while the control plane was not done. */
  readonly workerTemplateDuringControlPlane: readonly string[];
  readonly controlPlaneMachinesSeen: number;
}

interface Snapshot {
  readonly kcp: any;
  readonly md: any;
  readonly machines: any[];
}

/**
 * The MachineDeployment is read first: the gate moves its template only once the control plane is
 * done, and that stays true, so the KubeadmControlPlane and Machines read after a moved template
 * show the control plane done too. Read the other way round, a template moved between the reads was
 * taken for one moved while the control plane was still rolling (seen once: KCP read just before
 * the gate let the node groups go, the MachineDeployment just after).
 */
async function snapshot(w: UpgradeWatch): Promise<Snapshot> {
  const get = async (path: string, what: string) => ok(await w.client.get(path), what, [200]);
  const mds = (await get(`/apis/${CAPI}/namespaces/${w.namespace}/machinedeployments`, 'listing MachineDeployments')).items as any[];
  const kcp = await get(`/apis/${KCP}/namespaces/${w.namespace}/kubeadmcontrolplanes/${w.cluster}-control-plane`, 'reading the KubeadmControlPlane');
  const machines = (await get(`/apis/${CAPI}/namespaces/${w.namespace}/machines`, 'listing Machines')).items as any[];
  return { kcp, md: mds.find((m) => m.metadata.name === `${w.cluster}-md-0`), machines };
}

const isControlPlane = (m: any) => m.metadata.labels?.[CP_LABEL] !== undefined;
const nodeVersion = (m: any): string | undefined => m.status?.nodeInfo?.kubeletVersion;

function controlPlaneDone(s: Snapshot, to: string): boolean {
  const cps = s.machines.filter(isControlPlane);
  return (
    s.kcp.status?.version === to &&
    (s.kcp.status?.observedGeneration ?? 0) >= s.kcp.metadata.generation &&
    cps.length === s.kcp.spec.replicas &&
    cps.every((m) => !m.metadata.deletionTimestamp && m.spec.version === to && nodeVersion(m) === to)
  );
}

function workersDone(s: Snapshot, to: string): boolean {
  const workers = s.machines.filter((m) => !isControlPlane(m));
  return workers.length === s.md.spec.replicas && workers.every((m) => !m.metadata.deletionTimestamp && m.status?.phase === 'Running' && nodeVersion(m) === to);
}

/** Every worker Node newer than the oldest control-plane Node, as `<machine> <version> > <version>`. */
function skew(s: Snapshot): string[] {
  const cpVersions = s.machines.filter(isControlPlane).map(nodeVersion).filter((v): v is string => !!v);
  if (cpVersions.length === 0) return [];
  const oldest = cpVersions.sort(comparePatch)[0];
  return s.machines
    .filter((m) => !isControlPlane(m) && nodeVersion(m) && comparePatch(nodeVersion(m)!, oldest) > 0)
    .map((m) => `${m.metadata.name} ${nodeVersion(m)} > control plane ${oldest}`);
}

export async function watchOrderedUpgrade(w: UpgradeWatch): Promise<UpgradeObservation> {
  const t0 = Date.now();
  const since = () => Math.round((Date.now() - t0) / 100) / 10;
  let applied: RunResult | undefined;
  // an apply that throws (a failed exit) ends the watch with its error, not at the watch's timeout
  let applyError: unknown;
  void w.apply().then(
    (r) => (applied = r),
    (e) => (applyError = e ?? new Error('the apply failed')),
  );
  const skewViolations: string[] = [];
  const templates = new Set<string>();
  const cpMachines = new Set<string>();
  let cpDone: number | undefined;
  let workersStarted: number | undefined;
  let polls = 0;
  let lastLine = '';
  for (;;) {
    if (applyError) throw applyError;
    if (Date.now() - t0 > w.timeoutMs) throw new Error(`the upgrade ${w.from} → ${w.to} did not finish in ${w.timeoutMs / 60_000} min: ${lastLine}`);
    const s = await snapshot(w);
    polls++;
    for (const m of s.machines.filter(isControlPlane)) cpMachines.add(m.metadata.name);
    skewViolations.push(...skew(s).map((v) => `${since()}s: ${v}`));
    const template: string = s.md.spec.template.spec.version;
    if (cpDone === undefined) templates.add(template);
    if (workersStarted === undefined && template === w.to) workersStarted = since();
    if (cpDone === undefined && controlPlaneDone(s, w.to)) cpDone = since();
    const line = `control plane ${s.machines.filter(isControlPlane).map((m) => `${m.metadata.name}=${nodeVersion(m) ?? m.spec.version}${m.metadata.deletionTimestamp ? '(deleting)' : ''}`).join(' ')}; workers template ${template}, ${s.machines.filter((m) => !isControlPlane(m)).map((m) => `${nodeVersion(m) ?? '-'}`).join(' ')}`;
    if (line !== lastLine) w.log(`upgrade ${since()}s: ${line}`);
    lastLine = line;
    if (applied && cpDone !== undefined && workersDone(s, w.to)) {
      return {
        apply: applied,
        controlPlaneDoneS: cpDone,
        workersStartedS: workersStarted,
        workersDoneS: since(),
        polls,
        skewViolations,
        workerTemplateDuringControlPlane: [...templates],
        controlPlaneMachinesSeen: cpMachines.size,
      };
    }
    if (applied && applied.code !== 0) {
      return { apply: applied, controlPlaneDoneS: cpDone ?? -1, workersStartedS: workersStarted, workersDoneS: -1, polls, skewViolations, workerTemplateDuringControlPlane: [...templates], controlPlaneMachinesSeen: cpMachines.size };
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** Waits for `count` control-plane Machines Running and the KubeadmControlPlane ready and up to date with them; returns them. */
export function controlPlaneRunning(client: KubeClient, namespace: string, cluster: string, count: number): Promise<any[]> {
  return waitFor(`${count} control-plane Machines Running and KCP ready`, 15 * 60_000, async () => {
    const ms = (ok(await client.get(`/apis/${CAPI}/namespaces/${namespace}/machines`), 'listing Machines', [200]).items as any[]).filter(isControlPlane);
    const k = ok(await client.get(`/apis/${KCP}/namespaces/${namespace}/kubeadmcontrolplanes/${cluster}-control-plane`), 'reading the KubeadmControlPlane', [200]);
    const done = ms.length === count && ms.every((m) => m.status?.phase === 'Running') && k.status?.readyReplicas === count && k.status?.upToDateReplicas === count;
    return done ? ms : undefined;
  }, 2_000);
}
