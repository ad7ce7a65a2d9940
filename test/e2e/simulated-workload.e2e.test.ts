/**
 * The simulated workload cluster (support/simulated-workload.ts) against a private management
 * kube-apiserver in place of local-kube, with what KCP would have written there (the cluster's
 * CA, service-account, etcd-CA and kubeconfig Secrets; Machines): each control-plane Machine gets
 * a Node and an etcd member named after it that answers through the workload API server's
 * pods/portforward of `etcd-<node>` (KCP's route), joined members show up, a member that KCP
 * removes is stopped, and one whose Machine goes is stopped too.
 * Needs only local-kube's binaries; skipped without them unless LOCAL_KUBE_REQUIRED=1.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tls from 'tls';
import { stringify } from 'yaml';
import { issueCertificate, makeCa } from './support/local-pki';
import { tlsRequest } from './support/local-process';
import { kubectlPortForward, PrivateKube, privateKubeSuite, startPrivateKube, writeKubeconfig } from './support/private-kube';
import { SimulatedWorkloadCluster } from './support/simulated-workload';
import { ok, waitFor } from './support/workload-kube';

const { bin: BIN, suite } = privateKubeSuite('simulated-workload e2e');

const NS = 'sim-e2e';
const CLUSTER = 'c1';
const pem = (f: string) => fs.readFileSync(f, 'utf8');
const b64 = (s: string) => Buffer.from(s).toString('base64');

const MACHINE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'machines.cluster.x-k8s.io' },
  spec: {
    group: 'cluster.x-k8s.io',
    names: { kind: 'Machine', plural: 'machines', singular: 'machine', listKind: 'MachineList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1beta2', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

suite('simulated workload cluster: etcd members KCP reaches through pods/portforward', () => {
  let dir: string;
  let mgmt: PrivateKube;
  let sim: SimulatedWorkloadCluster | undefined;
  let kubeconfig: string;
  const lines: string[] = [];
  let etcdClient: { ca: string; client: { cert: string; key: string } };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulated-workload-e2e-'));
    fs.mkdirSync(path.join(dir, 'mgmt'));
    fs.mkdirSync(path.join(dir, 'kcp'));
    mgmt = await startPrivateKube(BIN, path.join(dir, 'mgmt'), makeCa(path.join(dir, 'mgmt'), 'ca', 'management'));
    // what KCP generates for the cluster
    const kcp = path.join(dir, 'kcp');
    const ca = makeCa(kcp, 'ca', 'kubernetes');
    const etcdCa = makeCa(kcp, 'etcd-ca', 'etcd-ca');
    const sa = makeCa(kcp, 'sa', 'sa');
    const admin = issueCertificate(kcp, 'admin', ca, '/O=system:masters/CN=kubernetes-admin', 'client');
    etcdClient = { ca: etcdCa.cert, client: issueCertificate(kcp, 'etcd-client', etcdCa, '/CN=kcp-etcd-client', 'client') };
    ok(await mgmt.client.request('POST', '/api/v1/namespaces', { metadata: { name: NS } }), 'namespace');
    ok(await mgmt.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', MACHINE_CRD), 'Machine CRD');
    const secret = async (name: string, data: Record<string, string>) =>
      ok(await mgmt.client.request('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: `${CLUSTER}-${name}` }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) }), `Secret ${name}`);
    await secret('ca', { 'tls.crt': pem(ca.cert), 'tls.key': pem(ca.key) });
    await secret('etcd', { 'tls.crt': pem(etcdCa.cert), 'tls.key': pem(etcdCa.key) });
    await secret('sa', { 'tls.crt': pem(sa.cert), 'tls.key': pem(sa.key) });
    await secret('kubeconfig', {
      value: stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 'admin',
        clusters: [{ name: CLUSTER, cluster: { server: 'https://203.0.113.10:6443', 'certificate-authority-data': b64(pem(ca.cert)) } }],
        users: [{ name: 'admin', user: { 'client-certificate-data': b64(pem(admin.cert)), 'client-key-data': b64(pem(admin.key)) } }],
        contexts: [{ name: 'admin', context: { cluster: CLUSTER, user: 'admin' } }],
      }),
    });
    await waitFor('the Machine CRD to be served', 30_000, async () => {
      const r = await mgmt.client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machines`);
      return r.kind === 'response' && r.status === 200 ? true : undefined;
    }, 250);
    sim = await SimulatedWorkloadCluster.start({ management: mgmt.client, namespace: NS, cluster: CLUSTER, kubeBinDir: BIN, etcdUrl: mgmt.etcdUrl, dir: path.join(dir, 'sim'), log: (l) => lines.push(l) }, 60_000);
    kubeconfig = path.join(dir, 'workload.kubeconfig');
    writeKubeconfig(kubeconfig, sim.server, ca.cert, admin);
  }, 240_000);

  afterAll(async () => {
    await sim?.stop();
    await mgmt?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function machine(name: string, controlPlane = true): Promise<void> {
    const labels: Record<string, string> = { 'cluster.x-k8s.io/cluster-name': CLUSTER, ...(controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}) };
    ok(await mgmt.client.request('POST', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machines`, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name, labels }, spec: { clusterName: CLUSTER, version: 'v1.34.10', providerID: `openstack:///${name}` } }), `Machine ${name}`);
    await waitFor(`the simulation to register Node ${name}`, 90_000, async () => (sim!.nodes.has(name) ? true : undefined), 250);
  }

  /** An etcd v3 gateway call to the member behind pod `etcd-<node>`, through the workload API server. */
  async function throughPortForward(node: string, route: string, body: unknown = {}): Promise<any> {
    const pf = await kubectlPortForward(BIN, kubeconfig, `etcd-${node}`);
    try {
      const r = await tlsRequest(`https://127.0.0.1:${pf.port}${route}`, etcdClient, 'POST', body);
      if (r.status !== 200) throw new Error(`${route} through etcd-${node}: ${r.status} ${r.text} (kubectl: ${pf.output()})`);
      return JSON.parse(r.text);
    } finally {
      await pf.stop();
    }
  }
  const names = async (node: string) => ((await throughPortForward(node, '/v3/cluster/member/list')).members as { name: string }[]).map((m) => m.name).sort();

  test('the first control-plane Machine bootstraps an etcd member named after its Node', async () => {
    await machine('c1-cp-a');
    expect(await names('c1-cp-a')).toEqual(['c1-cp-a']);
  });

  test("kube-apiserver-<node> forwards to the API server, whose certificate KCP reads (CN kube-apiserver)", async () => {
    const pf = await kubectlPortForward(BIN, kubeconfig, 'kube-apiserver-c1-cp-a', 6443);
    try {
      const subject = await new Promise<string>((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port: pf.port, rejectUnauthorized: false }, () => {
          resolve(String(s.getPeerCertificate().subject.CN));
          s.end();
        });
        s.on('error', reject);
      });
      expect(subject).toBe('kube-apiserver');
    } finally {
      await pf.stop();
    }
  });

  test('a later control-plane Machine joins its member; a worker gets none', async () => {
    await machine('c1-cp-b');
    await machine('c1-md-0', false);
    expect(await names('c1-cp-b')).toEqual(['c1-cp-a', 'c1-cp-b']);
    expect(await names('c1-cp-a')).toEqual(['c1-cp-a', 'c1-cp-b']);
  });

  test('a member removed from the etcd cluster (as KCP does) is stopped', async () => {
    const members: { ID: string; name: string }[] = (await throughPortForward('c1-cp-a', '/v3/cluster/member/list')).members;
    const id = members.find((m) => m.name === 'c1-cp-b')!.ID;
    // etcd refuses a removal until its leader has seen the cluster healthy for 5 s; KCP retries too
    await waitFor('etcd to accept removing c1-cp-b', 30_000, async () =>
      throughPortForward('c1-cp-a', '/v3/cluster/member/remove', { ID: id }).then(() => true, (e: Error) => (e.message.includes('unhealthy cluster') ? undefined : Promise.reject(e))), 1_000);
    await waitFor('the simulation to stop member c1-cp-b', 30_000, async () => (lines.some((l) => l.includes('etcd member c1-cp-b of c1 stopped (removed from the etcd cluster)')) ? true : undefined), 250);
    expect(await names('c1-cp-a')).toEqual(['c1-cp-a']);
  });

  test('a member whose Machine is gone is stopped; stop() leaves no member data', async () => {
    await machine('c1-cp-c');
    expect(await names('c1-cp-c')).toEqual(['c1-cp-a', 'c1-cp-c']);
    ok(await mgmt.client.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${NS}/machines/c1-cp-c`), 'deleting Machine c1-cp-c', [200]);
    await waitFor('the simulation to stop member c1-cp-c', 30_000, async () => (lines.some((l) => l.includes('etcd member c1-cp-c of c1 stopped (Machine gone)')) ? true : undefined), 250);
    await sim!.stop();
    sim = undefined;
    expect(fs.readdirSync(path.join(dir, 'sim', 'etcd')).filter((f) => f.endsWith('.data'))).toEqual([]);
  });
});
