/**
 * Backup of a management cluster's Cluster API state: `clusterctl move --to-directory` for each
 * namespace that holds Clusters (clusterctl pauses them while it reads, then resumes them), the
 * files packed into one encrypted backup. Clusters a failed run left paused are resumed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BACKUP_FORMAT, BackupContent, BackupError, NamespaceMetadata } from './backup-archive';
import { Clusterctl } from './clusterctl';
import { ManagementApi } from './management-api';

export interface ManagementTarget {
  readonly api: ManagementApi;
  /** A kubeconfig file for clusterctl, and its context. */
  readonly kubeconfigFile: string;
  readonly context?: string;
}

export interface BackupOptions {
  readonly environment: string;
  readonly target: ManagementTarget;
  readonly clusterctl: Clusterctl;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
}

export async function takeBackup(o: BackupOptions): Promise<BackupContent> {
  const clusters = await o.target.api.clusters();
  const paused = clusters.filter((c) => c.paused);
  if (paused.length > 0) {
    throw new BackupError(`paused clusters cannot be backed up (clusterctl refuses; a move or an earlier failed backup may have paused them): ${paused.map((c) => `${c.namespace}/${c.name}`).join(', ')}`);
  }
  const namespaces = [...new Set(clusters.map((c) => c.namespace))];
  o.progress(`${clusters.length} ${clusters.length === 1 ? 'cluster' : 'clusters'} in ${namespaces.length} ${namespaces.length === 1 ? 'namespace' : 'namespaces'}`);
  const files: Record<string, Record<string, string>> = {};
  const namespaceMetadata: Record<string, NamespaceMetadata> = {};
  for (const ns of namespaces) namespaceMetadata[ns] = await o.target.api.namespaceMetadata(ns);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-backup-'));
  try {
    for (const ns of namespaces) {
      const dir = path.join(work, ns);
      fs.mkdirSync(dir, { mode: 0o700 });
      const t0 = Date.now();
      const args = ['move', '--to-directory', dir, '--namespace', ns, '--kubeconfig', o.target.kubeconfigFile, ...(o.target.context ? ['--kubeconfig-context', o.target.context] : [])];
      const r = await o.clusterctl.run(args, o.env, (l) => o.progress(`  ${ns}: ${l}`));
      if (r.code !== 0) {
        await resumeLeftPaused(o.target.api, clusters.filter((c) => c.namespace === ns), o.progress);
        throw new BackupError(`clusterctl move --to-directory of namespace ${ns} failed (exit ${r.code}): ${lastLines(r.output)}`);
      }
      files[ns] = Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
      o.progress(`${ns}: ${Object.keys(files[ns]).length} objects in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return {
    header: {
      format: BACKUP_FORMAT,
      environment: o.environment,
      createdAt: (o.now ?? (() => new Date()))().toISOString(),
      clusters: clusters.map((c) => `${c.namespace}/${c.name}`),
      objects: Object.values(files).reduce((n, f) => n + Object.keys(f).length, 0),
      clusterctlVersion: o.clusterctl.version,
    },
    namespaces: files,
    namespaceMetadata,
  };
}

/** clusterctl pauses before it writes and resumes after; a failure in between leaves clusters paused. */
async function resumeLeftPaused(api: ManagementApi, wereRunning: readonly { namespace: string; name: string }[], progress: (line: string) => void): Promise<void> {
  const now = await api.clusters();
  for (const c of now.filter((c) => c.paused && wereRunning.some((w) => w.namespace === c.namespace && w.name === c.name))) {
    progress(`resuming ${c.namespace}/${c.name}, which the failed run left paused`);
    await api.unpause(c);
  }
}

export function lastLines(output: string, n = 6): string {
  return output.split('\n').filter((l) => l.trim()).slice(-n).join(' | ').slice(0, 1500);
}
