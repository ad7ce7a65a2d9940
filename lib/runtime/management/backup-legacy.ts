/**
 * Backups of the previous format (capi-openstack-backup/v1): their content is authenticated by the
 * key, their clear header (environment, time, clusters, counts) is not. When the operator asks to
 * open one, what matters is therefore taken from the content: the environment from the label each
 * namespace carries (`capi-openstack-cdktf/environment`, set by the workload stacks), the clusters
 * from the Cluster objects clusterctl wrote. Only the time stays the header's word, and is shown so.
 */
import { BackupError, describeBackupValue } from './backup-error';
import { BackupHeader } from './backup-header';

/** What a v1 file's header may not be trusted for, established from its authenticated content. */
export interface LegacyContent {
  readonly namespaces: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly namespaceMetadata: Readonly<Record<string, { readonly labels: Readonly<Record<string, string>> }>>;
}

export const ENVIRONMENT_LABEL = 'capi-openstack-cdktf/environment';

/** The header of a v1 backup, rebuilt from its content; refused unless the content is of `environment`. */
export function legacyHeaderFromContent(header: BackupHeader, content: LegacyContent, environment: string, what: string): BackupHeader {
  const namespaces = Object.keys(content.namespaces);
  if (namespaces.length === 0) throw new BackupError(`${what}: a ${header.format} backup without namespaces: its environment cannot be established from its content`);
  for (const ns of namespaces) {
    const label = content.namespaceMetadata[ns]?.labels?.[ENVIRONMENT_LABEL];
    if (label !== environment) {
      throw new BackupError(`${what}: namespace ${describeBackupValue(ns)} in this ${header.format} backup is labelled ${ENVIRONMENT_LABEL}=${describeBackupValue(label)}: expected "${environment}" (the environment of a backup whose header is not authenticated is taken from its encrypted content)`);
    }
  }
  const clusters: string[] = [];
  let objects = 0;
  for (const [ns, files] of Object.entries(content.namespaces)) {
    for (const [name, text] of Object.entries(files)) {
      objects++;
      const cluster = clusterOf(text);
      if (cluster === 'unreadable') throw new BackupError(`${what}: ${describeBackupValue(`${ns}/${name}`)} is not the JSON clusterctl writes: the clusters of this ${header.format} backup cannot be established from its content`);
      if (!cluster) continue;
      if (cluster.namespace !== ns) throw new BackupError(`${what}: Cluster ${describeBackupValue(`${cluster.namespace}/${cluster.name}`)} is stored under namespace ${describeBackupValue(ns)}`);
      clusters.push(`${ns}/${cluster.name}`);
    }
  }
  return { ...header, environment, clusters: clusters.sort(), objects };
}

/** A Cluster API Cluster in a `clusterctl move` file (JSON, whatever its `.yaml` name says). */
function clusterOf(text: string): { namespace: string; name: string } | undefined | 'unreadable' {
  let o: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  try {
    o = JSON.parse(text) as typeof o;
  } catch {
    return 'unreadable';
  }
  if (typeof o !== 'object' || o === null) return 'unreadable';
  if (o.kind !== 'Cluster' || typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('cluster.x-k8s.io/')) return undefined;
  if (typeof o.metadata?.name !== 'string' || typeof o.metadata?.namespace !== 'string') return 'unreadable';
  return { namespace: o.metadata.namespace, name: o.metadata.name };
}
