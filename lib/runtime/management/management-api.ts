/**
 * The few reads and writes the management commands make themselves over the management cluster's
 * API (clusterctl does the rest): which Clusters it holds, and unpausing what a failed backup
 * left paused.
 */
import { HttpTransportError, httpRequest } from '../http';
import type { InstalledProvider } from './upgrade-plan';

/** How to reach the management API (client certificate or bearer token). */
export interface ManagementApiAccess {
  readonly server: string;
  readonly caPem: string;
  readonly certPem?: string;
  readonly keyPem?: string;
  readonly token?: string;
}

export interface ClusterSummary {
  readonly namespace: string;
  readonly name: string;
  readonly paused: boolean;
}

const CLUSTERS = '/apis/cluster.x-k8s.io/v1beta2';

export class ManagementApi {
  constructor(private readonly access: ManagementApiAccess) {}

  async clusters(): Promise<ClusterSummary[]> {
    const body = (await this.call('GET', `${CLUSTERS}/clusters`)) as { items?: { metadata: { namespace: string; name: string }; spec?: { paused?: boolean } }[] };
    return (body.items ?? []).map((c) => ({ namespace: c.metadata.namespace, name: c.metadata.name, paused: c.spec?.paused === true })).sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  }

  /** clusterctl's provider inventory (empty when clusterctl never ran here). */
  async providers(): Promise<InstalledProvider[]> {
    const body = (await this.call('GET', '/apis/clusterctl.cluster.x-k8s.io/v1alpha3/providers', undefined, [404])) as number | { items?: { metadata: { namespace: string }; providerName?: string; type?: string; version?: string }[] };
    if (typeof body === 'number') return [];
    return (body.items ?? []).map((p) => ({ namespace: p.metadata.namespace, providerName: p.providerName ?? '', type: p.type ?? '', version: p.version ?? '' }));
  }

  /** Labels and annotations of a namespace (those Kubernetes sets itself left out). */
  async namespaceMetadata(name: string): Promise<{ labels: Record<string, string>; annotations: Record<string, string> }> {
    const ns = (await this.call('GET', `/api/v1/namespaces/${encodeURIComponent(name)}`)) as { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } };
    const labels = { ...ns.metadata.labels };
    delete labels['kubernetes.io/metadata.name'];
    return { labels, annotations: { ...ns.metadata.annotations } };
  }

  /** Creates the namespace with these labels and annotations unless it exists; true when created. */
  async ensureNamespace(name: string, metadata: { labels: Record<string, string>; annotations: Record<string, string> }): Promise<boolean> {
    const status = await this.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...metadata } }, [409]);
    return status !== 409;
  }

  async unpause(cluster: ClusterSummary): Promise<void> {
    await this.call('PATCH', `${CLUSTERS}/namespaces/${encodeURIComponent(cluster.namespace)}/clusters/${encodeURIComponent(cluster.name)}`, { spec: { paused: null } });
  }

  /** The parsed answer; for a status in `accepted` (e.g. 409 Conflict) the status itself. */
  private async call(method: string, path: string, body?: unknown, accepted: readonly number[] = []): Promise<unknown> {
    const url = `${this.access.server.replace(/\/+$/, '')}${path}`;
    let res;
    try {
      res = await httpRequest({
        method,
        url,
        body,
        contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        headers: this.access.token ? { authorization: `Bearer ${this.access.token}` } : {},
        caPem: this.access.caPem,
        certPem: this.access.certPem,
        keyPem: this.access.keyPem,
        timeoutMs: 30_000,
      });
    } catch (e) {
      if (e instanceof HttpTransportError) throw new Error(`${method} ${url}: ${e.message}`);
      throw e;
    }
    if (res.status === 404 && path.endsWith('/clusters')) throw new Error(`the management cluster at ${this.access.server} has no Cluster API (no ${CLUSTERS} clusters): is it the right cluster, with Cluster API installed?`);
    if (accepted.includes(res.status)) return res.status;
    if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${url}: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    return res.text ? JSON.parse(res.text) : undefined;
  }
}
