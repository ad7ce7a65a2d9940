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
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KubeClient } from '../../lib/runtime/readiness/kube-client';
import { KubeletStandin } from './support/kubelet-standin';
import { CertFiles, issueCertificate, makeCa, openssl } from './support/local-pki';
import { freePort, startLogged, stopProcess, tlsRequest } from './support/local-process';
import { SimulatedEtcd } from './support/simulated-etcd';
import { ok, waitFor } from './support/workload-kube';

const ROOT = path.resolve(__dirname, '../..');
const BIN = spawnSync('bash', ['-c', '. scripts/local-kube/lib.sh && echo "$LOCAL_KUBE_BIN_DIR"'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const NEEDED = ['etcd', 'kube-apiserver', 'kubectl', 'kubelet-standin'];
const present = NEEDED.every((b) => fs.existsSync(path.join(BIN, b)));
if (!present && process.env.LOCAL_KUBE_REQUIRED !== '1') {
  console.warn(`kubelet-standin e2e skipped: ${NEEDED.join(', ')} not all in ${BIN} (scripts/local-kube/build; LOCAL_KUBE_REQUIRED=1 makes this a failure)`);
}
const suite = present || process.env.LOCAL_KUBE_REQUIRED === '1' ? describe : describe.skip;

suite('kubelet stand-in: pods/portforward to a real etcd member', () => {
  let dir: string;
  let storage: ChildProcess;
  let apiserver: ChildProcess;
  let standin: KubeletStandin;
  let etcd: SimulatedEtcd;
  let client: KubeClient;
  let kubeconfig: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-standin-e2e-'));
    const ca = makeCa(dir, 'ca', 'kubernetes');
    const etcdCa = makeCa(dir, 'etcd-ca', 'etcd-ca');
    const [sp, pp] = [await freePort(), await freePort()];
    storage = startLogged(path.join(BIN, 'etcd'), ['--name=storage', `--data-dir=${dir}/storage.data`, `--listen-client-urls=http://127.0.0.1:${sp}`, `--advertise-client-urls=http://127.0.0.1:${sp}`, `--listen-peer-urls=http://127.0.0.1:${pp}`, `--initial-advertise-peer-urls=http://127.0.0.1:${pp}`, `--initial-cluster=storage=http://127.0.0.1:${pp}`, '--log-level=warn'], `${dir}/storage.log`);
    standin = await KubeletStandin.start(BIN, path.join(dir, 'standin'), ca);
    etcd = new SimulatedEtcd({ binDir: BIN, dir: path.join(dir, 'etcd'), ca: etcdCa, token: 'standin-e2e', log: () => undefined });
    await etcd.addMember('cp-0');
    client = await startApiServer(ca, `http://127.0.0.1:${sp}`);
    ok(await client.request('POST', '/api/v1/namespaces/kube-system/serviceaccounts', { metadata: { name: 'default' } }), 'ServiceAccount');
    await controlPlaneNode('cp-0');
  }, 180_000);

  afterAll(async () => {
    await etcd?.stop();
    await standin?.stop();
    await stopProcess(apiserver);
    await stopProcess(storage);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function startApiServer(ca: CertFiles, storageUrl: string): Promise<KubeClient> {
    const serving = issueCertificate(dir, 'apiserver', ca, '/CN=kube-apiserver', 'server');
    const admin = issueCertificate(dir, 'admin', ca, '/O=system:masters/CN=admin', 'client');
    openssl(['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', 'sa.key'], dir);
    openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
    const port = await freePort();
    apiserver = startLogged(path.join(BIN, 'kube-apiserver'), [
      `--etcd-servers=${storageUrl}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none',
      `--secure-port=${port}`, `--tls-cert-file=${serving.cert}`, `--tls-private-key-file=${serving.key}`, `--client-ca-file=${ca.cert}`,
      `--service-account-key-file=${dir}/sa.pub`, `--service-account-signing-key-file=${dir}/sa.key`, '--service-account-issuer=https://kubernetes.default.svc',
      '--service-cluster-ip-range=10.96.0.0/12', '--authorization-mode=RBAC', '--anonymous-auth=false', ...standin.apiServerFlags(),
    ], `${dir}/kube-apiserver.log`);
    const server = `https://127.0.0.1:${port}`;
    const c = new KubeClient({ server, caPem: fs.readFileSync(ca.cert, 'utf8'), certPem: fs.readFileSync(admin.cert, 'utf8'), keyPem: fs.readFileSync(admin.key, 'utf8') });
    await waitFor('the private kube-apiserver', 120_000, async () => {
      if (apiserver.exitCode !== null) throw new Error(`kube-apiserver exited; see ${dir}/kube-apiserver.log`);
      const r = await c.get('/readyz');
      return r.kind === 'response' && r.status === 200 ? true : undefined;
    }, 500);
    kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'e2e',
      clusters: [{ name: 'e2e', cluster: { server, 'certificate-authority': ca.cert } }],
      users: [{ name: 'admin', user: { 'client-certificate': admin.cert, 'client-key': admin.key } }],
      contexts: [{ name: 'e2e', context: { cluster: 'e2e', user: 'admin' } }],
    }));
    return c;
  }

  /** A Node served by the stand-in and a Running pod `kube-system/<pod>` bound to it. */
  async function controlPlaneNode(node: string, pod = `etcd-${node}`): Promise<void> {
    const n = await client.request('POST', '/api/v1/nodes', { metadata: { name: node } });
    if (!(n.kind === 'response' && (n.status === 201 || n.status === 409))) ok(n, `Node ${node}`);
    ok(await client.request('PATCH', `/api/v1/nodes/${node}/status`, { status: { ...standin.nodeStatus(), conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'stand-in' }] } }), `Node ${node} status`, [200]);
    ok(await client.request('POST', '/api/v1/namespaces/kube-system/pods', { metadata: { name: pod }, spec: { nodeName: node, containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.6.5-0' }] } }), `Pod ${pod}`);
    ok(await client.request('PATCH', `/api/v1/namespaces/kube-system/pods/${pod}/status`, { status: { phase: 'Running' } }), `Pod ${pod} Running`, [200]);
  }

  /** `kubectl port-forward pod/<pod> :2379`; resolves with the local port once kubectl listens. */
  async function portForward(pod: string): Promise<{ port: number; output: () => string; stop: () => Promise<void> }> {
    const kubectl = spawn(path.join(BIN, 'kubectl'), ['--kubeconfig', kubeconfig, '-n', 'kube-system', 'port-forward', `pod/${pod}`, ':2379'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    kubectl.stdout.on('data', (c) => (out += c));
    kubectl.stderr.on('data', (c) => (out += c));
    const port = await waitFor(`kubectl port-forward pod/${pod}`, 30_000, async () => {
      if (kubectl.exitCode !== null) throw new Error(`kubectl port-forward exited: ${out}`);
      const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 2379/.exec(out);
      return m ? Number(m[1]) : undefined;
    }, 100);
    return { port, output: () => out, stop: () => stopProcess(kubectl) };
  }

  /** Member names as the member behind `pod` lists them, through the API server's port-forward. */
  async function memberNamesThrough(pod: string): Promise<string[]> {
    const pf = await portForward(pod);
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
    const pf = await portForward('etcd-unmapped');
    try {
      await expect(tlsRequest(`https://127.0.0.1:${pf.port}/health`, etcd.tls)).rejects.toThrow();
      await waitFor('kubectl to report the error stream', 10_000, async () => (pf.output().includes('is not served by this kubelet stand-in') ? true : undefined), 100);
      expect(pf.output()).toContain('pod kube-system/etcd-unmapped is not served by this kubelet stand-in');
    } finally {
      await pf.stop();
    }
  });
});
