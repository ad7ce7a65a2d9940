/**
 * The control-plane upgrade gate's wait: the pure evaluation of a KubeadmControlPlane and its
 * Machines, and the whole command against a local HTTPS API server with real client-certificate
 * authentication whose control plane rolls while it watches (injected clock: no real waiting).
 */
import * as https from 'https';
import type { AddressInfo } from 'net';
import { runControlPlaneGate } from '../../../lib/runtime/cli/control-plane-gate';
import { evaluateControlPlane } from '../../../lib/runtime/readiness/control-plane';
import { TestPki, makeTestPki } from './support/pki';

const T = { namespace: 'capi-unit-alpha', name: 'alpha-control-plane', version: 'v1.37.2' };
const kcp = (o: { spec?: string; status?: string; upToDate?: number; replicas?: number; generation?: number; observed?: number } = {}) => ({
  metadata: { generation: o.generation ?? 2 },
  spec: { version: o.spec ?? 'v1.37.2', replicas: o.replicas ?? 3 },
  status: { version: o.status, observedGeneration: o.observed ?? 2, upToDateReplicas: o.upToDate ?? 0 },
});
const machine = (name: string, version: string, deleting = false) => ({ metadata: { name, ...(deleting ? { deletionTimestamp: '2026-11-25T21:00:00Z' } : {}) }, spec: { version } });

describe('evaluateControlPlane', () => {
  test('a control plane without machines is new: nothing to order', () => {
    expect(evaluateControlPlane(kcp(), [], T).phase).toBe('new');
  });

  test('rolling while any machine runs another version, is being deleted, or the status lags', () => {
    const rolling = evaluateControlPlane(kcp({ status: 'v1.36.3', upToDate: 1 }), [machine('a', 'v1.37.2'), machine('b', 'v1.36.3'), machine('c', 'v1.36.3')], T);
    expect(rolling).toEqual({
      phase: 'rolling',
      summary: 'KubeadmControlPlane capi-unit-alpha/alpha-control-plane: 1 of 3 machines at v1.37.2, status.version v1.36.3, 1 of 3 up to date; still: b at v1.36.3, c at v1.36.3',
    });
    const three = [machine('a', 'v1.37.2'), machine('b', 'v1.37.2'), machine('c', 'v1.37.2')];
    expect(evaluateControlPlane(kcp({ status: 'v1.37.2', upToDate: 3 }), [...three, machine('d', 'v1.37.2', true)], T).phase).toBe('rolling');
    expect(evaluateControlPlane(kcp({ status: 'v1.37.2', upToDate: 3, generation: 3, observed: 2 }), three, T).summary).toContain('status not yet observed');
    expect(evaluateControlPlane(kcp({ status: 'v1.36.3', upToDate: 3 }), three, T).phase).toBe('rolling');
    expect(evaluateControlPlane(kcp({ status: 'v1.37.2', upToDate: 3 }), three, T).phase).toBe('done');
  });

  test('a KubeadmControlPlane that asks for another version is reported, never taken as done', () => {
    expect(evaluateControlPlane(kcp({ spec: 'v1.38.0', status: 'v1.38.0', upToDate: 3 }), [], T).summary).toBe(
      'KubeadmControlPlane capi-unit-alpha/alpha-control-plane asks for v1.38.0, expected v1.37.2 (was it changed by another apply?)',
    );
  });
});

describe('wait-for-control-plane against an API server', () => {
  let pki: TestPki;
  let server: https.Server;
  let polls = 0;
  const requests: string[] = [];
  beforeAll(async () => {
    pki = makeTestPki();
    server = https.createServer({ key: pki.server.keyPem, cert: pki.server.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      requests.push(req.url ?? '');
      const send = (body: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      // one more machine at the new version every poll (3 polls: one request for the KCP, one for the machines)
      if (req.url?.includes('/kubeadmcontrolplanes/')) polls++;
      const at = Math.min(polls - 1, 3);
      if (req.url?.includes('/kubeadmcontrolplanes/')) return send(kcp({ status: at === 3 ? 'v1.37.2' : 'v1.36.3', upToDate: at }));
      return send({ items: ['a', 'b', 'c'].map((n, i) => machine(n, i < at ? 'v1.37.2' : 'v1.36.3')) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    server.close();
    pki.cleanup();
  });

  test('waits until all machines run the version, then lets the node groups move; bad settings exit 2', async () => {
    const env = {
      KUBE_SERVER: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      KUBE_CA_PEM: pki.ca.certPem,
      KUBE_CLIENT_CERT_PEM: pki.client.certPem,
      KUBE_CLIENT_KEY_PEM: pki.client.keyPem,
      CONTROL_PLANE_NAMESPACE: T.namespace,
      CONTROL_PLANE_NAME: T.name,
      CONTROL_PLANE_VERSION: T.version,
      READY_INTERVAL_SECONDS: '0.01',
    };
    const out: string[] = [];
    const err: string[] = [];
    expect(await runControlPlaneGate(env, (l) => out.push(l), (l) => err.push(l))).toBe(0);
    expect(err).toEqual([]);
    expect(polls).toBe(4);
    expect(out.at(-1)).toMatch(/^control plane: v1\.37\.2 on all machines after .*; the node groups move now$/);
    expect(requests).toContain('/apis/cluster.x-k8s.io/v1beta2/namespaces/capi-unit-alpha/machines?labelSelector=cluster.x-k8s.io%2Fcontrol-plane-name%3Dalpha-control-plane');

    const bad: string[] = [];
    expect(await runControlPlaneGate({ ...env, CONTROL_PLANE_VERSION: 'v1.37.x' }, () => undefined, (l) => bad.push(l))).toBe(2);
    expect(bad).toEqual(["wait-for-control-plane: CONTROL_PLANE_VERSION must be an exact version like v1.37.2 (got 'v1.37.x')"]);
  });
});
