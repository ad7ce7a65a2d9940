/**
 * waitForManagement against a local HTTPS server with real TLS client-certificate authentication
 * (certificates made with openssl), with an injected clock so timeouts take no real time.
 */
import * as https from 'https';
import type { AddressInfo } from 'net';
import { ReadinessTimeoutError, waitForManagement } from '../../../lib/runtime/readiness/wait';
import { FakeApi, fakeClock, readyState, startFakeApi } from './support/fake-api';
import { TestPki, makeTestPki } from './support/pki';

let pki: TestPki;
let api: FakeApi | undefined;

beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.cleanup());
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function options(server: string, clock: ReturnType<typeof fakeClock>, lines: string[], extra: Partial<Parameters<typeof waitForManagement>[0]> = {}) {
  return {
    server,
    caPem: pki.ca.certPem,
    certPem: pki.client.certPem,
    keyPem: pki.client.keyPem,
    timeoutMs: 20 * 60_000,
    intervalMs: 10_000,
    progressEveryMs: 30_000,
    log: (line: string) => lines.push(line),
    now: clock.now,
    sleep: clock.sleep,
    ...extra,
  };
}

async function expectTimeout(promise: Promise<unknown>): Promise<ReadinessTimeoutError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReadinessTimeoutError);
  return error as ReadinessTimeoutError;
}

test('everything ready: resolves on the first poll with one "ready" line', async () => {
  api = await startFakeApi(pki, readyState());
  const lines: string[] = [];
  const clock = fakeClock();
  const result = await waitForManagement(options(api.url, clock, lines));
  expect(result).toEqual({ elapsedMs: 0, polls: 1 });
  expect(clock.sleeps).toEqual([]);
  expect(lines).toEqual([
    `management cluster: waiting up to 20m for ${api.url} (API, 7 CRDs, 6 controllers)`,
    'management cluster: ready after 0s (API, 7 CRDs, 6 controllers)',
  ]);
  // Every check was asked for once: /readyz, 7 CRDs, 6 Deployments.
  expect(api.requests).toHaveLength(14);
  expect(api.requests).toContain('/apis/apps/v1/namespaces/capo-system/deployments/capo-controller-manager');
});

test('controllers come up over time: progress about every 30 s, then resolves', async () => {
  const state = readyState();
  state.deployments.set('capo-system/capo-controller-manager', 0); // exists, not available
  state.deployments.delete('caaph-system/caaph-controller-manager'); // not created yet
  api = await startFakeApi(pki, state);
  const lines: string[] = [];
  const clock = fakeClock((t) => {
    if (t >= 50_000) state.deployments.set('caaph-system/caaph-controller-manager', 0);
    if (t >= 90_000) {
      state.deployments.set('capo-system/capo-controller-manager', 1);
      state.deployments.set('caaph-system/caaph-controller-manager', 1);
    }
  });
  const result = await waitForManagement(options(api.url, clock, lines));
  expect(result).toEqual({ elapsedMs: 90_000, polls: 10 });
  expect(clock.sleeps).toEqual(Array(9).fill(10_000));
  const waiting = 'controllers 4/6 available (waiting for capo-system/capo-controller-manager, caaph-system/caaph-controller-manager)';
  expect(lines).toEqual([
    `management cluster: waiting up to 20m for ${api.url} (API, 7 CRDs, 6 controllers)`,
    `management cluster: 0s of 20m — API ok, CRDs 7/7 established, ${waiting}`,
    `management cluster: 30s of 20m — API ok, CRDs 7/7 established, ${waiting}`,
    `management cluster: 1m of 20m — API ok, CRDs 7/7 established, ${waiting}`,
    'management cluster: ready after 1m30s (API, 7 CRDs, 6 controllers)',
  ]);
});

test('a Deployment that never appears: timeout message names it and only the failing checks', async () => {
  const state = readyState();
  state.deployments.delete('capo-system/capo-controller-manager');
  state.deployments.set('caaph-system/caaph-controller-manager', 0);
  state.crds.set('openstackclusters.infrastructure.cluster.x-k8s.io', false);
  api = await startFakeApi(pki, state);
  const lines: string[] = [];
  const clock = fakeClock();
  const error = await expectTimeout(waitForManagement(options(api.url, clock, lines, { timeoutMs: 3 * 60_000 + 30_000 })));
  expect(error.message).toBe(
    [
      'management cluster not ready after 3m30s (timeout 3m30s): 3 of 14 checks failing:',
      '  - CRD openstackclusters.infrastructure.cluster.x-k8s.io not Established (Installing: the initial names have not been accepted yet)',
      '  - Deployment capo-system/capo-controller-manager not found',
      '  - Deployment caaph-system/caaph-controller-manager not Available (0 replicas available, Available=False: MinimumReplicasUnavailable: Deployment does not have minimum availability.)',
    ].join('\n'),
  );
  // Polls at 0, 10 s, ..., 3m30s: the last poll happens right at the deadline.
  expect(clock.now()).toBe(210_000);
  expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(210_000);
  // Progress lines at 0, 30 s, ..., 3m: 7 of them, plus the opening line.
  const progress = lines.filter((l) => l.includes(' of 3m30s — '));
  expect(progress).toHaveLength(7);
  expect(progress[6]).toBe(
    'management cluster: 3m of 3m30s — API ok, CRDs 6/7 established (waiting for openstackclusters.infrastructure.cluster.x-k8s.io), ' +
      'controllers 4/6 available (waiting for capo-system/capo-controller-manager, caaph-system/caaph-controller-manager)',
  );
});

test('the last poll before the deadline is not skipped when the interval does not divide the timeout', async () => {
  const state = readyState();
  state.deployments.delete('cert-manager/cert-manager-webhook');
  api = await startFakeApi(pki, state);
  const clock = fakeClock((t) => {
    if (t >= 25_000) state.deployments.set('cert-manager/cert-manager-webhook', 1);
  });
  const result = await waitForManagement(options(api.url, clock, [], { timeoutMs: 25_000, intervalMs: 10_000 }));
  expect(clock.sleeps).toEqual([10_000, 10_000, 5_000]);
  expect(result).toEqual({ elapsedMs: 25_000, polls: 4 });
});

test('server down: message says the API is not reachable (ECONNREFUSED); other checks are not tried', async () => {
  api = await startFakeApi(pki, readyState());
  const url = api.url;
  await api.close();
  api = undefined;
  const lines: string[] = [];
  const error = await expectTimeout(waitForManagement(options(url, fakeClock(), lines, { timeoutMs: 60_000 })));
  const [head, ...rest] = error.message.split('\n');
  expect(head).toBe('management cluster not ready after 1m (timeout 1m): 14 of 14 checks failing:');
  expect(rest[0]).toBe(`  - API ${url} not reachable: ECONNREFUSED`);
  expect(rest).toContain('  - Deployment capo-system/capo-controller-manager not checked (API not reachable)');
  expect(rest).toContain('  - CRD helmchartproxies.addons.cluster.x-k8s.io not checked (API not reachable)');
  expect(lines[1]).toBe(`management cluster: 0s of 1m — API ${url} not reachable: ECONNREFUSED`);
});

test('wrong client certificate, server enforces it in the TLS handshake: message says TLS error / rejected', async () => {
  api = await startFakeApi(pki, readyState(), 'strict');
  const error = await expectTimeout(
    waitForManagement(options(api.url, fakeClock(), [], { timeoutMs: 10_000, certPem: pki.otherClient.certPem, keyPem: pki.otherClient.keyPem })),
  );
  expect(error.message.split('\n')[1]).toMatch(new RegExp(`^  - API ${api.url} not reachable: (TLS error: the server rejected the client certificate|ECONNRESET \\(connection reset: the server may have rejected the client certificate\\))`));
  expect(api.requests).toEqual([]); // never got past the handshake
});

test('wrong client certificate, server answers 401 (kube-apiserver style): message says unauthorized', async () => {
  api = await startFakeApi(pki, readyState(), 'lenient');
  const error = await expectTimeout(
    waitForManagement(options(api.url, fakeClock(), [], { timeoutMs: 10_000, certPem: pki.otherClient.certPem, keyPem: pki.otherClient.keyPem })),
  );
  expect(error.message).toContain(`  - API ${api.url} answered 401 Unauthorized: the client certificate was not accepted`);
  expect(error.message).toContain('  - CRD clusters.cluster.x-k8s.io answered 401 Unauthorized');
});

test('server certificate not signed by the given CA: TLS error about the server certificate', async () => {
  api = await startFakeApi(pki, readyState());
  const error = await expectTimeout(waitForManagement(options(api.url, fakeClock(), [], { timeoutMs: 10_000, caPem: pki.otherCa.certPem })));
  expect(error.message.split('\n')[1]).toMatch(
    new RegExp(`^  - API ${api.url} not reachable: TLS error: the server certificate is not valid for this CA/address \\((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE): `),
  );
});

test('server accepts but never answers: each request gives up after the request timeout', async () => {
  const state = readyState();
  state.hang = true;
  api = await startFakeApi(pki, state);
  const started = Date.now();
  const error = await expectTimeout(waitForManagement(options(api.url, fakeClock(), [], { timeoutMs: 10_000, requestTimeoutMs: 300 })));
  expect(error.message).toContain(`API ${api.url} not reachable: timeout after 0.3s`);
  // 2 polls x 0.3 s of real time; a request that never gave up would hang until the test's time limit (jest.config.js)
  expect(Date.now() - started).toBeLessThan(60_000);
});

test('no connection is left open: a plain https server sees every socket closed after a poll', async () => {
  const server = https.createServer({ key: pki.server.keyPem, cert: pki.server.certPem }, (_req, res) => res.end('ok'));
  let open = 0;
  server.on('secureConnection', (socket) => {
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await waitForManagement(options(url, fakeClock(), [], { checks: [{ kind: 'api', name: 'API', path: '/readyz' }] }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(open).toBe(0);
  } finally {
    server.close();
  }
});
