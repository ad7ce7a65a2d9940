/**
 * Kubernetes side of the workload-cluster e2e suite: a client for the local kube-apiserver, REST
 * paths of the CAPI/CAPO/CAAPH kinds, and a stand-in for the controllers and webhooks that do not
 * run there. The stand-in writes what Cluster API v1.12, CAPO v0.14 and CAAPH v0.6 write to the
 * objects of a cluster (webhook defaults, finalizer, owner references, labels, annotations, status)
 * under its own field manager, so a re-plan after it shows whether Terraform would fight them.
 */
import * as fs from 'fs';
import * as path from 'path';
import { credentialsFromKubeconfig } from '../../../lib/runtime/cli/kubeconfig/kubeconfig-file';
import { KubeResponse } from '../../../lib/runtime/readiness/checks';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';

export function kubeClientFromKubeconfig(file: string, context?: string): KubeClient {
  const creds = credentialsFromKubeconfig(fs.readFileSync(file, 'utf8'), file, { context, baseDir: path.dirname(file) });
  if (!creds.certPem || !creds.keyPem) throw new Error(`${file}: expected a client certificate (the local kube's admin kubeconfig)`);
  return new KubeClient({ server: creds.server, caPem: creds.caPem, certPem: creds.certPem, keyPem: creds.keyPem, timeoutMs: 20_000 });
}

/** The object key the suite uses everywhere. */
export interface ObjectId {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

export function plural(kind: string): string {
  const k = kind.toLowerCase();
  return k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
}

export function objectPath(o: ObjectId, subresource = ''): string {
  const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  return `${base}/namespaces/${o.namespace}/${plural(o.kind)}/${o.name}${subresource ? `/${subresource}` : ''}`;
}

export function objectLabel(o: ObjectId): string {
  return `${o.kind} ${o.namespace}/${o.name}`;
}

/** Body of a 2xx answer; throws with the status and message otherwise. */
export function ok(res: KubeResponse, what: string, allowed: readonly number[] = [200, 201]): any {
  if (res.kind === 'error') throw new Error(`${what}: ${res.reason}`);
  if (!allowed.includes(res.status)) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

export async function getObject(client: KubeClient, o: ObjectId): Promise<any | undefined> {
  const res = await client.get(objectPath(o));
  if (res.kind === 'response' && res.status === 404) return undefined;
  return ok(res, `reading ${objectLabel(o)}`, [200]);
}

export const SIMULATED_MANAGER = 'capi-e2e-simulated-controllers';

/** Merge-patches `patch` into the object as the simulated controllers (`status` via the subresource). */
export async function patchAsController(client: KubeClient, o: ObjectId, patch: unknown, subresource = ''): Promise<void> {
  ok(await client.request('PATCH', `${objectPath(o, subresource)}?fieldManager=${SIMULATED_MANAGER}`, patch), `patching ${objectLabel(o)}${subresource ? `/${subresource}` : ''}`, [200]);
}

const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
const DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
/** The finalizer CAPI's Cluster controller holds until machines, control plane and infrastructure are gone. */
export const CLUSTER_FINALIZER = 'cluster.cluster.x-k8s.io';

/** `v` prefix, as the CAPI webhooks normalize versions. */
const vVersion = (v: unknown) => (typeof v === 'string' && v !== '' && !v.startsWith('v') ? `v${v}` : v);

/**
 * What the mutating webhooks of CAPI v1.12.10 / CAAPH v0.6.4 would change on `live` (their Default()
 * functions, read from the module sources): a merge patch, or undefined when nothing changes.
 * CAPO v0.14 has no defaulting webhooks; the KubeadmConfigTemplate webhook only defaults dry-runs
 * of the topology controller.
 */
export function webhookDefaults(live: any): Record<string, unknown> | undefined {
  const spec = live.spec ?? {};
  const labels = live.metadata?.labels ?? {};
  switch (live.kind) {
    case 'MachineDeployment': {
      const selector = spec.selector?.matchLabels ?? {};
      const templateLabels = spec.template?.metadata?.labels ?? {};
      const empty = Object.keys(selector).length === 0 && (spec.selector?.matchExpressions ?? []).length === 0;
      const strategy = spec.rollout?.strategy ?? {};
      const type = strategy.type ?? 'RollingUpdate';
      return {
        metadata: { labels: { ...labels, [CLUSTER_NAME_LABEL]: spec.clusterName } },
        spec: {
          replicas: spec.replicas ?? 1,
          selector: { matchLabels: { ...selector, ...(empty ? { [DEPLOYMENT_NAME_LABEL]: live.metadata.name } : {}), [CLUSTER_NAME_LABEL]: spec.clusterName } },
          rollout: {
            strategy: {
              type,
              ...(type === 'RollingUpdate'
                ? { rollingUpdate: { maxSurge: strategy.rollingUpdate?.maxSurge ?? 1, maxUnavailable: strategy.rollingUpdate?.maxUnavailable ?? 0 } }
                : {}),
            },
          },
          template: {
            metadata: { labels: { ...templateLabels, ...(empty ? { [DEPLOYMENT_NAME_LABEL]: live.metadata.name } : {}), [CLUSTER_NAME_LABEL]: spec.clusterName } },
            spec: { version: vVersion(spec.template?.spec?.version) },
          },
        },
      };
    }
    case 'KubeadmControlPlane':
      return {
        spec: {
          replicas: spec.replicas ?? 1,
          version: vVersion(spec.version),
          rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: spec.rollout?.strategy?.rollingUpdate?.maxSurge ?? 1 } } },
        },
      };
    case 'MachineHealthCheck':
      return {
        metadata: { labels: { ...labels, [CLUSTER_NAME_LABEL]: spec.clusterName } },
        spec: { checks: { nodeStartupTimeoutSeconds: spec.checks?.nodeStartupTimeoutSeconds ?? 600 } },
      };
    case 'ClusterResourceSet':
      return { spec: { strategy: spec.strategy || 'ApplyOnce' } };
    case 'HelmChartProxy':
      return {
        spec: {
          namespace: spec.namespace || 'default',
          options: { ...(spec.options?.atomic ? { wait: true } : {}), timeout: spec.options?.timeout ?? '10m0s' },
        },
      };
    default:
      return undefined;
  }
}

/** Kinds whose owner CAPI sets to the Cluster (cluster, MachineDeployment and MHC controllers, external template refs). */
const OWNED_BY_CLUSTER = new Set(['OpenStackCluster', 'KubeadmControlPlane', 'MachineDeployment', 'MachineHealthCheck', 'OpenStackMachineTemplate', 'KubeadmConfigTemplate']);

export interface SimulationReport {
  readonly patched: number;
  readonly webhookDefaulted: string[];
}

/**
 * Writes what the controllers would: webhook defaults, the cluster-name label, owner references to
 * the Cluster (so the garbage collector removes the rest once the Cluster is deleted, as in a real
 * management cluster), revision/annotation bookkeeping, status, and the Cluster finalizer that
 * CAPI only removes after tearing the cluster down (the destroy test releases it).
 */
export async function simulateCapiControllers(client: KubeClient, objects: readonly ObjectId[], clusterName: string): Promise<SimulationReport> {
  const clusterObj = objects.find((o) => o.kind === 'Cluster' && o.name === clusterName);
  if (!clusterObj) throw new Error(`no Cluster ${clusterName} among the synthesized objects`);
  const cluster = await getObject(client, clusterObj);
  if (!cluster) throw new Error(`${objectLabel(clusterObj)} does not exist`);
  const owner = { apiVersion: cluster.apiVersion, kind: 'Cluster', name: cluster.metadata.name, uid: cluster.metadata.uid };
  const webhookDefaulted: string[] = [];
  let patched = 0;
  for (const o of objects) {
    const live = await getObject(client, o);
    if (!live) throw new Error(`${objectLabel(o)} does not exist`);
    const defaults = webhookDefaults(live);
    if (defaults) {
      await patchAsController(client, o, defaults);
      webhookDefaulted.push(`${o.kind}/${o.name}`);
      patched++;
    }
    const meta: Record<string, unknown> = { labels: { [CLUSTER_NAME_LABEL]: clusterName } };
    if (OWNED_BY_CLUSTER.has(o.kind)) meta.ownerReferences = [owner];
    if (o.kind === 'MachineDeployment') meta.annotations = { 'machinedeployment.clusters.x-k8s.io/revision': '1' };
    if (o.kind === 'Cluster') meta.finalizers = [CLUSTER_FINALIZER];
    if (o.kind === 'HelmChartProxy') meta.annotations = { 'e2e.capi-openstack-cdktf/simulated': 'caaph' };
    await patchAsController(client, o, { metadata: meta });
    patched++;
  }
  // status written by the controllers (subresource; a spec-only manifest must not notice)
  const md = objects.filter((o) => o.kind === 'MachineDeployment');
  await patchAsController(client, clusterObj, { status: { phase: 'Provisioning', observedGeneration: 1 } }, 'status');
  for (const o of md) await patchAsController(client, o, { status: { phase: 'ScalingUp', observedGeneration: 1, replicas: 0 } }, 'status');
  patched += 1 + md.length;
  return { patched, webhookDefaulted };
}

/** Removes every finalizer from the Clusters of `namespace` (what CAPI does when it has finished). */
export async function releaseClusterFinalizers(client: KubeClient, namespace: string): Promise<string[]> {
  const res = await client.get(`/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/clusters`);
  if (res.kind === 'response' && res.status === 404) return [];
  const list = ok(res, `listing Clusters in ${namespace}`, [200]);
  const released: string[] = [];
  for (const item of list.items ?? []) {
    if ((item.metadata.finalizers ?? []).length === 0) continue;
    const id = { apiVersion: item.apiVersion ?? 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: item.metadata.name, namespace };
    const r = await client.request('PATCH', objectPath(id), { metadata: { finalizers: null } });
    if (!(r.kind === 'response' && r.status === 404)) ok(r, `removing the finalizers of ${objectLabel(id)}`, [200]);
    released.push(item.metadata.name);
  }
  return released;
}

/** Polls until `probe` returns a value other than undefined, or throws after `limitMs`. */
export async function waitFor<T>(what: string, limitMs: number, probe: () => Promise<T | undefined>, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(limitMs / 1000)}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Deletes the namespace (if present) and waits until it is gone (bounded). */
export async function deleteNamespaceAndWait(client: KubeClient, namespace: string, limitMs = 120_000): Promise<void> {
  const del = await client.request('DELETE', `/api/v1/namespaces/${namespace}`);
  ok(del, `deleting namespace ${namespace}`, [200, 202, 404]);
  await waitFor(`namespace ${namespace} to disappear (is kube-controller-manager running?)`, limitMs, async () => {
    const r = await client.get(`/api/v1/namespaces/${namespace}`);
    if (r.kind === 'response' && r.status === 404) return true;
    ok(r, `reading namespace ${namespace}`, [200]);
    return undefined;
  }, 500);
}
