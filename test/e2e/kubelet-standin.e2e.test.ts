/**
 * The route KCP takes to a simulated workload cluster's etcd, with private processes on free
 * loopback ports: a kube-apiserver (its own plain etcd for storage) whose pods/portforward of
 * `kube-system/etcd-<node>` goes to local-kube's kubelet stand-in (the Node points at it), which
 * pipes the stream to a real etcd member requiring client certificates of an etcd CA. kubectl
 * port-forward (websocket tunnelling, as KCP dials) opens the tunnel; etcd's v3 JSON gateway over it
 * must answer with the member named after the Node, and a second member joined the way the
 * simulation joins them must show up too.
 * Needs only local-kube's binaries (scripts/local-kube/build); skipped without them unless
 * LOCAL_KUBE_REQUIRED=1.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { KubeletStandin } from './support/kubelet-standin';
import { makeCa } from './support/local-pki';
import { tlsRequest } from './support/local-process';
import { kubectlPortForward, PrivateKube, privateKubeSuite, startPrivateKube } from './support/private-kube';
import { SimulatedEtcd } from './support/simulated-etcd';
import { ok, waitFor } from './support/workload-kube';

const { bin: BIN, suite } = privateKubeSuite('kubelet-standin e2e');

suite('kubelet stand-in: pods/portforward to a real etcd member', () => {
  let dir: string;
  let kube: PrivateKube;
  let standin: KubeletStandin;
  let etcd: SimulatedEtcd;
  let client: KubeClient;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-standin-e2e-'));
    const ca = makeCa(dir, 'ca', 'kubernetes');
    const etcdCa = makeCa(dir, 'etcd-ca', 'etcd-ca');
    standin = await KubeletStandin.start(BIN, path.join(dir, 'standin'), ca);
    etcd = new SimulatedEtcd({ binDir: BIN, dir: path.join(dir, 'etcd'), ca: etcdCa, token: 'standin-e2e', log: () => undefined });
    await etcd.addMember('cp-0');
    kube = await startPrivateKube(BIN, dir, ca, standin.apiServerFlags());
    client = kube.client;
    ok(await client.request('POST', '/api/v1/namespaces/kube-system/serviceaccounts', { metadata: { name: 'default' } }), 'ServiceAccount');
    await controlPlaneNode('cp-0');
  }, 180_000);

  afterAll(async () => {
    await etcd?.stop();
    await standin?.stop();
    await kube?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A Node served by the stand-in and a Running pod `kube-system/<pod>` bound to it. */
  async function controlPlaneNode(node: string, pod = `etcd-${node}`): Promise<void> {
    const n = await client.request('POST', '/api/v1/nodes', { metadata: { name: node } });
    if (!(n.kind === 'response' && (n.status === 201 || n.status === 409))) ok(n, `Node ${node}`);
    ok(await client.request('PATCH', `/api/v1/nodes/${node}/status`, { status: { ...standin.nodeStatus(), conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'stand-in' }] } }), `Node ${node} status`, [200]);
    ok(await client.request('POST', '/api/v1/namespaces/kube-system/pods', { metadata: { name: pod }, spec: { nodeName: node, containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.6.5-0' }] } }), `Pod ${pod}`);
    ok(await client.request('PATCH', `/api/v1/namespaces/kube-system/pods/${pod}/status`, { status: { phase: 'Running' } }), `Pod ${pod} Running`, [200]);
  }

  /** Member names as the member behind `pod` lists them, through the API server's port-forward. */
  async function memberNamesThrough(pod: string): Promise<string[]> {
    const pf = await kubectlPortForward(BIN, kube.kubeconfig, pod);
    try {
      const r = await tlsRequest(`https://127.0.0.1:${pf.port}/v3/cluster/member/list`, etcd.tls, 'POST', {});
      expect(r.status).toBe(200);
      return (JSON.parse(r.text).members as { name: string }[]).map((m) => m.name).sort();
    } finally {
      await pf.stop();
    }
  }

  test('the member behind etcd-<node> answers through pods/portforward, named after the Node', async () => {
    standin.setPod('kube-system/etcd-cp-0', etcd.clientAddress('cp-0'));
    expect(await memberNamesThrough('etcd-cp-0')).toEqual(['cp-0']);
  });

  test('a second member, added and then started, is listed through its own Node', async () => {
    await etcd.addMember('cp-1');
    await controlPlaneNode('cp-1');
    standin.setPod('kube-system/etcd-cp-1', etcd.clientAddress('cp-1'));
    expect(await memberNamesThrough('etcd-cp-1')).toEqual(['cp-0', 'cp-1']);
    expect(await memberNamesThrough('etcd-cp-0')).toEqual(['cp-0', 'cp-1']);
  });

  test('a pod the stand-in does not map fails with a message naming it', async () => {
    await controlPlaneNode('cp-1', 'etcd-unmapped');
    const pf = await kubectlPortForward(BIN, kube.kubeconfig, 'etcd-unmapped');
    try {
      await expect(tlsRequest(`https://127.0.0.1:${pf.port}/health`, etcd.tls)).rejects.toThrow();
      await waitFor('kubectl to report the error stream', 10_000, async () => (pf.output().includes('is not served by this kubelet stand-in') ? true : undefined), 100);
      expect(pf.output()).toContain('pod kube-system/etcd-unmapped is not served by this kubelet stand-in');
    } finally {
      await pf.stop();
    }
  });
});
