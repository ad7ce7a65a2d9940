/**
 * A small HTTPS server on 127.0.0.1 that answers the readiness GETs like kube-apiserver would:
 * /readyz, CRDs and Deployments from a mutable state, Status objects for 401/404.
 */
import * as https from 'https';
import type { AddressInfo } from 'net';
import { REQUIRED_CRDS, REQUIRED_DEPLOYMENTS } from '../../../../lib/runtime/readiness/checks';
import type { TestPki } from './pki';

export interface FakeApiState {
  /** CRD name -> Established. Absent: 404. */
  readonly crds: Map<string, boolean>;
  /** namespace/name -> available replicas (0 means Available=False). Absent: 404. */
  readonly deployments: Map<string, number>;
  /** When true, requests are accepted but never answered. */
  hang: boolean;
}

export interface FakeApi {
  readonly url: string;
  readonly state: FakeApiState;
  /** Paths requested so far. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Everything present and ready. */
export function readyState(): FakeApiState {
  return {
    crds: new Map(REQUIRED_CRDS.map((c) => [c, true])),
    deployments: new Map(REQUIRED_DEPLOYMENTS.map((d) => [d, 1])),
    hang: false,
  };
}

/**
 * `strict`: the TLS layer refuses clients without a certificate from the CA (handshake error).
 * `lenient`: like kube-apiserver, the handshake succeeds and unauthenticated requests get 401.
 */
export async function startFakeApi(pki: TestPki, state: FakeApiState, mode: 'strict' | 'lenient' = 'strict'): Promise<FakeApi> {
  const requests: string[] = [];
  const server = https.createServer(
    { key: pki.server.keyPem, cert: pki.server.certPem, ca: pki.ca.certPem, requestCert: true, rejectUnauthorized: mode === 'strict' },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      requests.push(path);
      if (state.hang) return; // never answer
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      const statusObject = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
      if (!(req.socket as import('tls').TLSSocket).authorized) return send(401, statusObject(401, 'Unauthorized', 'Unauthorized'));
      if (path === '/readyz') return send(200, 'ok');

      let m = /^\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions\/([^/]+)$/.exec(path);
      if (m) {
        const established = state.crds.get(m[1]);
        if (established === undefined) return send(404, statusObject(404, 'NotFound', `customresourcedefinitions.apiextensions.k8s.io "${m[1]}" not found`));
        return send(200, {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: m[1] },
          status: {
            conditions: [
              { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
              established
                ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
                : { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have not been accepted yet' },
            ],
          },
        });
      }
      m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/.exec(path);
      if (m) {
        const available = state.deployments.get(`${m[1]}/${m[2]}`);
        if (available === undefined) return send(404, statusObject(404, 'NotFound', `deployments.apps "${m[2]}" not found`));
        return send(200, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: m[2], namespace: m[1] },
          status: {
            replicas: 1,
            ...(available > 0 ? { availableReplicas: available, readyReplicas: available } : { unavailableReplicas: 1 }),
            conditions: [
              available > 0
                ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
                : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
            ],
          },
        });
      }
      return send(404, statusObject(404, 'NotFound', 'the server could not find the requested resource'));
    },
  );
  server.on('tlsClientError', () => undefined); // expected in the wrong-certificate tests
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    state,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fake clock: `sleep` advances `now` instantly and runs `onSleep` (to change the server state over time). */
export function fakeClock(onSleep?: (nowMs: number) => void) {
  let t = 0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
      onSleep?.(t);
    },
    sleeps,
  };
}
