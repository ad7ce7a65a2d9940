/**
 * What "the management cluster is ready to accept CAPI objects" means, as pure data and pure
 * evaluation functions (no I/O). The wait loop fetches `check.path` and hands the answer to
 * `evaluateCheck`.
 */

export type CheckKind = 'api' | 'crd' | 'deployment';

export interface ReadinessCheck {
  readonly kind: CheckKind;
  /** Short name used in progress lines: `API`, the CRD name, or `namespace/name` of a Deployment. */
  readonly name: string;
  /** API path to GET, relative to the server URL. */
  readonly path: string;
}

/** What one GET produced: an HTTP answer, or a transport failure with a short reason. */
export type KubeResponse =
  | { readonly kind: 'response'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'error'; readonly reason: string };

export interface CheckResult {
  readonly check: ReadinessCheck;
  readonly ok: boolean;
  /** Why the check fails (empty when ok), one line naming the object, e.g. `Deployment a/b not found`. */
  readonly reason: string;
}

/** CRDs the stack's CAPI objects need, all of which must be Established. */
export const REQUIRED_CRDS: readonly string[] = [
  'clusters.cluster.x-k8s.io',
  'machinedeployments.cluster.x-k8s.io',
  'kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io',
  'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
  'openstackclusters.infrastructure.cluster.x-k8s.io',
  'openstackmachinetemplates.infrastructure.cluster.x-k8s.io',
  'helmchartproxies.addons.cluster.x-k8s.io',
];

/** Controllers (namespace/name) that must be Available: they serve the webhooks and reconcile the objects. */
export const REQUIRED_DEPLOYMENTS: readonly string[] = [
  'capi-system/capi-controller-manager',
  'capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-controller-manager',
  'capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-controller-manager',
  'capo-system/capo-controller-manager',
  'caaph-system/caaph-controller-manager',
  'cert-manager/cert-manager-webhook',
];

export function managementReadinessChecks(): ReadinessCheck[] {
  return [
    { kind: 'api', name: 'API', path: '/readyz' },
    ...REQUIRED_CRDS.map((crd): ReadinessCheck => ({
      kind: 'crd',
      name: crd,
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
    })),
    ...REQUIRED_DEPLOYMENTS.map((id): ReadinessCheck => {
      const [namespace, name] = id.split('/');
      return { kind: 'deployment', name: id, path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}` };
    }),
  ];
}

/** How a check is named in failure reasons: `API https://h:6443`, `CRD x`, `Deployment ns/n`. */
export function checkLabel(check: ReadinessCheck, server: string): string {
  switch (check.kind) {
    case 'api':
      return `API ${server}`;
    case 'crd':
      return `CRD ${check.name}`;
    case 'deployment':
      return `Deployment ${check.name}`;
  }
}

export function evaluateCheck(check: ReadinessCheck, response: KubeResponse, server: string): CheckResult {
  const label = checkLabel(check, server);
  const fail = (reason: string): CheckResult => ({ check, ok: false, reason: `${label} ${reason}` });
  if (response.kind === 'error') return fail(`not reachable: ${response.reason}`);

  const { status, body } = response;
  if (status === 401) return fail('answered 401 Unauthorized: the client certificate was not accepted');
  if (status === 403) return fail(`answered 403 Forbidden: the client certificate's user may not read it${statusMessage(body)}`);
  if (status === 404 && check.kind !== 'api') return fail('not found');
  if (status !== 200) return fail(`answered HTTP ${status}${statusMessage(body)}`);

  switch (check.kind) {
    case 'api':
      return { check, ok: true, reason: '' };
    case 'crd': {
      const established = findCondition(body, 'Established');
      if (established?.status === 'True') return { check, ok: true, reason: '' };
      return fail(`not Established${describeCondition(established)}`);
    }
    case 'deployment': {
      const available = findCondition(body, 'Available');
      const replicas = numberAt(body, 'status', 'availableReplicas');
      if (available?.status === 'True' && replicas >= 1) return { check, ok: true, reason: '' };
      return fail(`not Available (${replicas} replicas available${available ? `, Available=${available.status}` : ''}${describeCondition(available, true)})`);
    }
  }
}

/** Minimal shape of a Kubernetes status condition. */
interface Condition {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly reason?: unknown;
  readonly message?: unknown;
}

function findCondition(body: unknown, type: string): Condition | undefined {
  const conditions = valueAt(body, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c: Condition | null) => c !== null && typeof c === 'object' && c.type === type) as Condition | undefined;
}

function describeCondition(c: Condition | undefined, inParens = false): string {
  if (!c) return inParens ? '' : ' (no Established condition yet)';
  const parts = [typeof c.reason === 'string' ? c.reason : '', typeof c.message === 'string' ? oneLine(c.message) : ''].filter(Boolean);
  if (parts.length === 0) return '';
  return inParens ? `: ${parts.join(': ')}` : ` (${parts.join(': ')})`;
}

function statusMessage(body: unknown): string {
  const message = valueAt(body, 'message');
  if (typeof message === 'string' && message) return `: ${oneLine(message)}`;
  if (typeof body === 'string' && body.trim()) return `: ${oneLine(body)}`;
  return '';
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function valueAt(body: unknown, ...keys: string[]): unknown {
  let value: unknown = body;
  for (const key of keys) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function numberAt(body: unknown, ...keys: string[]): number {
  const value = valueAt(body, ...keys);
  return typeof value === 'number' ? value : 0;
}
