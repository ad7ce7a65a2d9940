/**
 * The workload nodes' metadata block (issue 35, item 4) checked on a booted control-plane node of the
 * workload-nodes suite, with helpers/metadata-block-checks.ts: a metadata stand-in on the node, the
 * host probes (root reads the user data with the CA key, a non-root process is blocked, its control
 * connects) and probe pods (pod network and hostNetwork as non-root blocked, their controls connect,
 * hostNetwork root connects), over IPv4 and, where the node's kernel has it, IPv6 (host and
 * hostNetwork probes; see metadataProbePodsV6), then the same after a reboot of the node's stand-in,
 * with the block's unit up before containerd and kubelet.
 */
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { testDocker } from '../support/hypervisor-kit';
import { ok, waitFor } from '../support/workload-kube';
import { blockBeforeRuntimeCommand, cloudInitReaderProbes, hostProbeHolds, hostProbes, hostProbesV6, metadataProbePods, metadataProbePodsV6, metadataStandInCommand, nodeLinkCommand, podOutcome, stopMetadataStandInCommand } from './metadata-block-checks';

type OnNode = (argv: readonly string[]) => { code: number | null; out: string };

export interface MetadataCheckContext {
  readonly workload: KubeClient;
  /** The control-plane Node's name and fixed IP, and a command on its stand-in as root. */
  readonly nodeName: string;
  readonly nodeAddress: string;
  readonly onNode: OnNode;
  /** An image with bash the node can pull (the service probe's, through the registry mirror). */
  readonly probeImage: string;
  readonly log: (line: string) => void;
}

/** What each probe reported, `name: outcome`, in order; the caller compares with what each expects. */
export interface MetadataProbeResults {
  readonly host: { name: string; holds: boolean; out: string }[];
  readonly pods: { name: string; expected: string; found: string }[];
  /** Whether the IPv6 probes ran (the node's kernel has IPv6). */
  readonly ipv6: boolean;
}

/** Runs the host probes and the probe pods once; removes the pods and the stand-in afterwards. */
export async function probeMetadataBlock(c: MetadataCheckContext, round: string): Promise<MetadataProbeResults> {
  const started = c.onNode(metadataStandInCommand());
  if (started.code !== 0) throw new Error(`starting the metadata stand-in on ${c.nodeName}: ${started.out.slice(-600)}`);
  try {
    // '' where the kernel has no IPv6: then only the IPv4 probes run
    const link = c.onNode(nodeLinkCommand()).out.trim();
    const host = [...hostProbes(c.nodeAddress), ...cloudInitReaderProbes(), ...(link ? hostProbesV6(link) : [])].map((p) => {
      const r = c.onNode(p.argv);
      return { name: p.name, holds: hostProbeHolds(p, r), out: r.out.trim().slice(0, 200) };
    });
    const probes = [...metadataProbePods(c.nodeName, c.probeImage, c.nodeAddress), ...(link ? metadataProbePodsV6(c.nodeName, c.probeImage, link) : [])];
    for (const p of probes) ok(await c.workload.request('POST', '/api/v1/namespaces/default/pods', p.manifest), `creating ${p.manifest.metadata.name}`, [201]);
    const pods: MetadataProbeResults['pods'] = [];
    for (const p of probes) {
      const name = p.manifest.metadata.name as string;
      const done = await waitFor(`${name} to terminate`, 4 * 60_000, async () => {
        const r = await c.workload.get(`/api/v1/namespaces/default/pods/${name}`);
        const body = r.kind === 'response' && r.status === 200 ? (r.body as any) : undefined;
        // a pod the kubelet rejects (admission) fails without ever running its container
        return body && (podOutcome(body) !== 'not terminated' || body.status?.phase === 'Failed') ? body : undefined;
      }, 2_000).catch(async (e) => {
        throw new Error(`${(e as Error).message}\n${await whyNotDone(c, name)}`);
      });
      const found = podOutcome(done);
      pods.push({ name, expected: p.expect, found: found === 'not terminated' ? `failed: ${done.status?.reason}: ${done.status?.message}` : found });
      ok(await c.workload.request('DELETE', `/api/v1/namespaces/default/pods/${name}?gracePeriodSeconds=0`), `deleting ${name}`, [200]);
    }
    c.log(`metadata block (${round}): ${[...host.map((h) => `${h.name}: ${h.holds ? 'as expected' : `NOT as expected (${h.out})`}`), ...pods.map((p) => `${p.name}: ${p.found} (expected ${p.expected})`)].join('; ')}`);
    return { host, pods, ipv6: link !== '' };
  } finally {
    c.onNode(stopMetadataStandInCommand());
  }
}

/** What the pod, its Node and the node's kubelet and containerd say, for a pod that does not finish. */
async function whyNotDone(c: MetadataCheckContext, name: string): Promise<string> {
  const pod = await c.workload.get(`/api/v1/namespaces/default/pods/${name}`);
  const node = await c.workload.get(`/api/v1/nodes/${c.nodeName}`);
  const status = pod.kind === 'response' ? JSON.stringify((pod.body as any)?.status ?? pod.body).slice(0, 1500) : pod.kind;
  const conditions = node.kind === 'response' ? JSON.stringify(((node.body as any)?.status?.conditions ?? []).map((x: any) => `${x.type}=${x.status} ${x.reason ?? ''} ${x.message ?? ''}`)) : node.kind;
  const onNode = c.onNode(['bash', '-c', 'free -m; uptime; crictl pods 2>&1 | tail -12; crictl ps -a 2>&1 | tail -12; journalctl -u kubelet --no-pager -n 40; journalctl -u containerd --no-pager -n 20']);
  return `pod ${name}: ${status}\nNode ${c.nodeName}: ${conditions}\non the node:\n${onNode.out.slice(-6000)}`;
}

function expectAsPromised(r: MetadataProbeResults): void {
  expect(r.host.filter((h) => !h.holds)).toEqual([]);
  expect(r.pods.filter((p) => p.found !== p.expected)).toEqual([]);
  expect(r.pods).toHaveLength(r.ipv6 ? 8 : 5);
}

/**
 * How to reboot the node: its stand-in on the test dockerd, and a wait for its Node to be Ready
 * again as reported by the kubelet started after `since` (epoch ms): the status from before the
 * reboot stays Ready until the node controller's grace period ends.
 */
export interface Reboot {
  readonly dockerHost: string;
  readonly container: string;
  readonly ready: (since: number) => Promise<unknown>;
}

/**
 * The block on a booted node, then again after a reboot of its stand-in (`docker restart`), with the
 * block's unit active before containerd and kubelet.
 */
export async function expectMetadataBlocked(c: MetadataCheckContext, reboot: Reboot): Promise<MetadataProbeResults[]> {
  const first = await probeMetadataBlock(c, 'first boot');
  expectAsPromised(first);
  const since = Date.now();
  const restarted = testDocker(reboot.dockerHost, ['restart', '--time', '20', reboot.container], 180_000);
  if (restarted.code !== 0) throw new Error(`docker restart ${reboot.container}: ${restarted.out.slice(-600)}`);
  await reboot.ready(since);
  const order = c.onNode(blockBeforeRuntimeCommand());
  c.log(`after the reboot: ${order.out.trim().split('\n').join('; ')}`);
  expect({ code: order.code, out: order.out.trim() }).toEqual({ code: 0, out: expect.stringContaining('kubelet.service started at') });
  const after = await probeMetadataBlock(c, 'after a reboot');
  expectAsPromised(after);
  return [first, after];
}
