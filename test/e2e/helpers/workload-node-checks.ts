/**
 * The longer checks of the workload-nodes e2e suite, run on its booted nodes: etcd's member list
 * read on a control-plane node, and a pod on a worker reaching a Service by name (CoreDNS, the
 * Service network, kube-proxy) with an image only the registry mirror serves.
 */
import { UNINITIALIZED_NODE_TAINT } from '../../../lib/config/cloud-controller-warning';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { runLocalVm, testDocker } from '../support/hypervisor-kit';
import { ok, waitFor } from '../support/workload-kube';

/** The node and amphora stand-in images (scripts/local-vm/build-workload-images; cached by version). */
export function buildWorkloadImages(dockerHost: string, version: string): { node: string; amphora: string } {
  const r = runLocalVm(dockerHost, 'build-workload-images', [version], {}, 40 * 60_000);
  if (r.code !== 0) throw new Error(`scripts/local-vm/build-workload-images ${version} failed (${r.code}):\n${r.out.slice(-3000)}`);
  const node = /^node=(\S+)$/m.exec(r.out)?.[1];
  const amphora = /^amphora=(\S+)$/m.exec(r.out)?.[1];
  if (!node || !amphora) throw new Error(`build-workload-images printed no node=<image> and amphora=<image> lines:\n${r.out.slice(-1500)}`);
  return { node, amphora };
}

type OnNode = (argv: string[]) => { code: number | null; out: string };

/**
 * The node group's labels (from the environment file) on each worker's Node, and every Machine
 * Running with a nodeRef: one Machine per Node.
 */
export async function expectWorkerLabelsAndMachineNodeRefs(o: { nodes: any[]; workers: string[]; labels: Readonly<Record<string, string>>; machines: () => Promise<any[]> }): Promise<void> {
  for (const name of o.workers) {
    const labels = o.nodes.find((n) => n.metadata.name === name)?.metadata.labels ?? {};
    expect({ node: name, labels: Object.fromEntries(Object.keys(o.labels).map((k) => [k, labels[k]])) }).toEqual({ node: name, labels: o.labels });
  }
  const machines = await waitFor('3 Machines Running with nodeRefs', 5 * 60_000, async () => {
    const ms = await o.machines();
    return ms.length === 3 && ms.every((m) => m.status?.phase === 'Running' && m.status?.nodeRef?.name) ? ms : undefined;
  }, 3_000);
  expect(machines.map((m) => m.status.nodeRef.name).sort()).toEqual(o.nodes.map((n) => n.metadata.name).sort());
}

/**
 * etcd's members, by name, read through etcd's JSON gateway on its client port with the API
 * server's etcd client certificate (curl on the node: no dependence on etcdctl in the etcd image).
 */
export function etcdMemberNames(onControlPlane: OnNode, log: (line: string) => void): string[] {
  const members = onControlPlane(['curl', '-sS', '--max-time', '20', '--cacert', '/etc/kubernetes/pki/etcd/ca.crt', '--cert', '/etc/kubernetes/pki/apiserver-etcd-client.crt', '--key', '/etc/kubernetes/pki/apiserver-etcd-client.key', '-X', 'POST', '-d', '{}', 'https://127.0.0.1:2379/v3/cluster/member/list']);
  log(`etcd member list: ${members.out.slice(0, 600)}`);
  if (members.code !== 0) throw new Error(`reading etcd's member list failed (${members.code}): ${members.out.slice(-600)}`);
  return (JSON.parse(members.out).members as any[]).map((m) => m.name).sort();
}

export interface ServiceProbeContext {
  readonly workload: KubeClient;
  readonly nodes: () => Promise<any[]>;
  /** The worker's Node name, and a command on its stand-in. */
  readonly worker: string;
  readonly onWorker: OnNode;
  /** A small local image with bash (the amphora's), pushed to the site's registry as the probe. */
  readonly amphoraImage: string;
  readonly dockerHost: string;
  readonly findings: string[];
  readonly log: (line: string) => void;
  readonly timed: <T>(phase: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * The amphora's image (bash, haproxy), pushed to the site's registry as the probe; returns the name
 * pods ask for. It is in the site's registry only: a node can get it from nowhere but the mirror its
 * hosts.toml names for registry.k8s.io.
 */
export function pushProbeImage(dockerHost: string, amphoraImage: string): string {
  const tag = amphoraImage.split(':').pop();
  const pushed = `172.30.250.1:5000/capi-e2e/probe:${tag}`;
  for (const args of [['tag', amphoraImage, pushed], ['push', '-q', pushed]]) {
    const r = testDocker(dockerHost, args, 300_000);
    if (r.code !== 0) throw new Error(`docker ${args.join(' ')}: ${r.out.slice(-800)}`);
  }
  return `registry.k8s.io/capi-e2e/probe:${tag}`;
}

/** CoreDNS Running, then a pod on the worker resolves and connects to the `kubernetes` Service. */
export async function expectServiceReachedFromWorker(c: ServiceProbeContext): Promise<void> {
  const { workload: w, findings, log, timed } = c;
  // OCCM removed the uninitialized taint (the suite's OCCM test): nothing here removes it by hand
  const tainted = (await c.nodes()).filter((n) => ((n.spec.taints ?? []) as any[]).some((t) => t.key === UNINITIALIZED_NODE_TAINT)).map((n) => n.metadata.name);
  expect({ taintedByUninitialized: tainted }).toEqual({ taintedByUninitialized: [] });
  const dns = await timed('CoreDNS Running', () =>
    waitFor('CoreDNS pods Running and Ready', 6 * 60_000, async () => {
      const r = await w.get('/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dkube-dns');
      const pods = r.kind === 'response' && r.status === 200 ? ((r.body as any).items as any[]) : [];
      return pods.length > 0 && pods.every((p) => p.status.phase === 'Running' && (p.status.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True')) ? pods : undefined;
    }, 3_000),
  );
  log(`CoreDNS on ${dns.map((p) => p.spec.nodeName).join(', ')}`);
  const probe = pushProbeImage(c.dockerHost, c.amphoraImage);
  const script = 'getent hosts kubernetes.default.svc.cluster.local && exec 3<>/dev/tcp/kubernetes.default.svc.cluster.local/443 && echo connected > /dev/termination-log';
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'service-probe', namespace: 'default' },
    spec: { nodeName: c.worker, restartPolicy: 'Never', containers: [{ name: 'probe', image: probe, command: ['bash', '-c', script] }] },
  };
  ok(await w.request('POST', '/api/v1/namespaces/default/pods', pod), 'creating the probe pod', [201]);
  const done = await timed('probe pod on a worker done', () =>
    waitFor('the probe pod to finish', 5 * 60_000, async () => {
      const p = await w.get('/api/v1/namespaces/default/pods/service-probe');
      const phase = p.kind === 'response' && p.status === 200 ? (p.body as any).status.phase : undefined;
      return phase === 'Succeeded' || phase === 'Failed' ? (p as any).body : undefined;
    }, 2_000),
  );
  // the kubelets have no serving certificates yet (serverTLSBootstrap: asked once OCCM set the Node
  // addresses, signed once the approver add-on approves), so pod logs cannot be read: the probe
  // reports through its termination message
  const terminated = done.status.containerStatuses?.[0]?.state?.terminated;
  log(`probe pod: ${done.status.phase}, exit ${terminated?.exitCode}: ${JSON.stringify(terminated?.message ?? '')}`);
  expect({ phase: done.status.phase, exitCode: terminated?.exitCode, message: terminated?.message?.trim() }).toEqual({ phase: 'Succeeded', exitCode: 0, message: 'connected' });
  const csrs = await w.get('/apis/certificates.k8s.io/v1/certificatesigningrequests');
  const serving = csrs.kind === 'response' && csrs.status === 200 ? ((csrs.body as any).items as any[]).filter((x) => x.spec.signerName === 'kubernetes.io/kubelet-serving') : [];
  findings.push(`kubelet-serving CSRs: ${serving.length}, approved ${serving.filter((x) => (x.status?.conditions ?? []).some((y: any) => y.type === 'Approved')).length} (kubelets with serverTLSBootstrap ask once OCCM set the Node addresses; the metrics-server check approves them as the product's approver would)`);
  expect(c.onWorker(['ctr', '-n', 'k8s.io', 'images', 'ls', '-q']).out).toContain(probe);
}

const UNIT_MIB: Record<string, number> = { B: 1 / 1048576, KiB: 1 / 1024, kB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 };

/** Memory in use per container in MiB (`docker stats --no-stream` on the test dockerd: cgroup usage minus page cache). */
export function memoryPerContainerMiB(dockerHost: string, containers: readonly string[]): Record<string, number> {
  const r = testDocker(dockerHost, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', ...containers]);
  if (r.code !== 0) throw new Error(`docker stats: ${r.out.slice(-600)}`);
  return Object.fromEntries(
    r.out.trim().split('\n').map((line) => {
      const m = /^(\S+) ([\d.]+)([A-Za-z]+) \//.exec(line);
      if (!m || UNIT_MIB[m[3]] === undefined) throw new Error(`docker stats printed an unexpected line: ${line}`);
      return [m[1], Math.round(Number(m[2]) * UNIT_MIB[m[3]] * 10) / 10];
    }),
  );
}
