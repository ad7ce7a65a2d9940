/** Pure parts: the check list, evaluation of API answers, progress/timeout text, durations. */
import { KubeResponse, evaluateCheck, managementReadinessChecks } from '../../../lib/runtime/readiness/checks';
import { describeError } from '../../../lib/runtime/readiness/kube-client';
import { formatDuration, progressLine, timeoutReport } from '../../../lib/runtime/readiness/wait';

const SERVER = 'https://203.0.113.10:6443';
const checks = managementReadinessChecks();
const byName = (name: string) => {
  const c = checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check ${name}`);
  return c;
};
const ok = (body: unknown): KubeResponse => ({ kind: 'response', status: 200, body });

test('the check list: API, 7 CRDs, 6 Deployments with their API paths', () => {
  expect(checks.map((c) => `${c.kind} ${c.name} ${c.path}`)).toEqual([
    'api API /readyz',
    'crd clusters.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusters.cluster.x-k8s.io',
    'crd machinedeployments.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/machinedeployments.cluster.x-k8s.io',
    'crd kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io',
    'crd kubeadmcontrolplanes.controlplane.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
    'crd openstackclusters.infrastructure.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/openstackclusters.infrastructure.cluster.x-k8s.io',
    'crd openstackmachinetemplates.infrastructure.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/openstackmachinetemplates.infrastructure.cluster.x-k8s.io',
    'crd helmchartproxies.addons.cluster.x-k8s.io /apis/apiextensions.k8s.io/v1/customresourcedefinitions/helmchartproxies.addons.cluster.x-k8s.io',
    'deployment capi-system/capi-controller-manager /apis/apps/v1/namespaces/capi-system/deployments/capi-controller-manager',
    'deployment capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-controller-manager /apis/apps/v1/namespaces/capi-kubeadm-bootstrap-system/deployments/capi-kubeadm-bootstrap-controller-manager',
    'deployment capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-controller-manager /apis/apps/v1/namespaces/capi-kubeadm-control-plane-system/deployments/capi-kubeadm-control-plane-controller-manager',
    'deployment capo-system/capo-controller-manager /apis/apps/v1/namespaces/capo-system/deployments/capo-controller-manager',
    'deployment caaph-system/caaph-controller-manager /apis/apps/v1/namespaces/caaph-system/deployments/caaph-controller-manager',
    'deployment cert-manager/cert-manager-webhook /apis/apps/v1/namespaces/cert-manager/deployments/cert-manager-webhook',
  ]);
});

describe('evaluateCheck', () => {
  const api = byName('API');
  const crd = byName('clusters.cluster.x-k8s.io');
  const dep = byName('capo-system/capo-controller-manager');

  test('API: 200 passes; transport error, 401, 500 fail with the server named', () => {
    expect(evaluateCheck(api, ok('ok'), SERVER)).toEqual({ check: api, ok: true, reason: '' });
    expect(evaluateCheck(api, { kind: 'error', reason: 'timeout after 10s' }, SERVER).reason).toBe(`API ${SERVER} not reachable: timeout after 10s`);
    expect(evaluateCheck(api, { kind: 'response', status: 401, body: { kind: 'Status', message: 'Unauthorized' } }, SERVER).reason).toBe(
      `API ${SERVER} answered 401 Unauthorized: the client certificate was not accepted`,
    );
    expect(evaluateCheck(api, { kind: 'response', status: 500, body: '[-]poststarthook/crd-informer-synced failed: reason withheld\nreadyz check failed' }, SERVER).reason).toBe(
      `API ${SERVER} answered HTTP 500: [-]poststarthook/crd-informer-synced failed: reason withheld readyz check failed`,
    );
  });

  test('CRD: Established=True passes; missing condition, False, 404 and 403 fail with a reason', () => {
    const cond = (status: string) => ({ status: { conditions: [{ type: 'NamesAccepted', status: 'True' }, { type: 'Established', status, reason: 'Installing', message: 'wait' }] } });
    expect(evaluateCheck(crd, ok(cond('True')), SERVER).ok).toBe(true);
    expect(evaluateCheck(crd, ok(cond('False')), SERVER).reason).toBe('CRD clusters.cluster.x-k8s.io not Established (Installing: wait)');
    expect(evaluateCheck(crd, ok({ status: {} }), SERVER).reason).toBe('CRD clusters.cluster.x-k8s.io not Established (no Established condition yet)');
    expect(evaluateCheck(crd, { kind: 'response', status: 404, body: {} }, SERVER).reason).toBe('CRD clusters.cluster.x-k8s.io not found');
    expect(
      evaluateCheck(crd, { kind: 'response', status: 403, body: { message: 'customresourcedefinitions.apiextensions.k8s.io "clusters.cluster.x-k8s.io" is forbidden: User "system:anonymous" cannot get resource' } }, SERVER).reason,
    ).toBe(
      `CRD clusters.cluster.x-k8s.io answered 403 Forbidden: the client certificate's user may not read it: customresourcedefinitions.apiextensions.k8s.io "clusters.cluster.x-k8s.io" is forbidden: User "system:anonymous" cannot get resource`,
    );
  });

  test('Deployment: needs Available=True AND availableReplicas >= 1', () => {
    const body = (status: string, availableReplicas?: number) => ({ status: { availableReplicas, conditions: [{ type: 'Available', status, reason: 'R' }] } });
    expect(evaluateCheck(dep, ok(body('True', 1)), SERVER).ok).toBe(true);
    expect(evaluateCheck(dep, ok(body('True', 2)), SERVER).ok).toBe(true);
    // replicas: 0 makes a Deployment "Available" with nothing running: not good enough.
    expect(evaluateCheck(dep, ok(body('True', 0)), SERVER).reason).toBe('Deployment capo-system/capo-controller-manager not Available (0 replicas available, Available=True: R)');
    expect(evaluateCheck(dep, ok(body('False', 1)), SERVER).reason).toBe('Deployment capo-system/capo-controller-manager not Available (1 replicas available, Available=False: R)');
    expect(evaluateCheck(dep, ok({ status: {} }), SERVER).reason).toBe('Deployment capo-system/capo-controller-manager not Available (0 replicas available)');
    expect(evaluateCheck(dep, ok('not json'), SERVER).ok).toBe(false);
    expect(evaluateCheck(dep, { kind: 'response', status: 404, body: {} }, SERVER).reason).toBe('Deployment capo-system/capo-controller-manager not found');
  });
});

test('progressLine: API failure alone, or counts with the waiting objects named', () => {
  const pass = (name: string) => ({ check: byName(name), ok: true, reason: '' });
  const failing = (name: string) => ({ check: byName(name), ok: false, reason: `${name} bad` });
  const all = checks.map((c) => pass(c.name));
  expect(progressLine(all, 210_000, 1_200_000)).toBe('management cluster: 3m30s of 20m — API ok, CRDs 7/7 established, controllers 6/6 available');
  const some = all.map((r) => (['helmchartproxies.addons.cluster.x-k8s.io', 'cert-manager/cert-manager-webhook'].includes(r.check.name) ? failing(r.check.name) : r));
  expect(progressLine(some, 45_000, 600_000)).toBe(
    'management cluster: 45s of 10m — API ok, CRDs 6/7 established (waiting for helmchartproxies.addons.cluster.x-k8s.io), controllers 5/6 available (waiting for cert-manager/cert-manager-webhook)',
  );
  const apiDown = [{ check: byName('API'), ok: false, reason: `API ${SERVER} not reachable: EHOSTUNREACH` }, ...all.slice(1)];
  expect(progressLine(apiDown, 61_000, 1_200_000)).toBe(`management cluster: 1m1s of 20m — API ${SERVER} not reachable: EHOSTUNREACH`);
  expect(timeoutReport(some, 600_000, 600_000)).toBe(
    [
      'management cluster not ready after 10m (timeout 10m): 2 of 14 checks failing:',
      '  - helmchartproxies.addons.cluster.x-k8s.io bad',
      '  - cert-manager/cert-manager-webhook bad',
    ].join('\n'),
  );
});

test('formatDuration', () => {
  expect([0, 400, 45_000, 60_000, 210_000, 1_200_000, 3_600_000, 3_725_000].map(formatDuration)).toEqual(['0s', '0s', '45s', '1m', '3m30s', '20m', '1h', '1h2m5s']);
});

test('describeError: short codes, TLS hints', () => {
  const err = (code: string, message: string) => Object.assign(new Error(message), { code });
  expect(describeError(err('ECONNREFUSED', 'connect ECONNREFUSED 203.0.113.10:6443'))).toBe('ECONNREFUSED');
  expect(describeError(err('EHOSTUNREACH', 'connect EHOSTUNREACH 203.0.113.10:6443'))).toBe('EHOSTUNREACH');
  expect(describeError(err('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'C0:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/ssl_rec_layer.c:1605:SSL alert number 42'))).toBe(
    'TLS error: the server rejected the client certificate (bad certificate) [ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE]',
  );
  expect(describeError(err('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: IP: 203.0.113.10 is not in the cert's list: 10.0.0.5"))).toBe(
    "TLS error: the server certificate is not valid for this CA/address (ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames: IP: 203.0.113.10 is not in the cert's list: 10.0.0.5)",
  );
});
