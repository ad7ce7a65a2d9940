/**
 * Restore of a backup into a management cluster that does not hold its clusters:
 * `clusterctl move --from-directory` per namespace (it creates the namespaces and objects, links
 * owners anew and resumes the clusters). The controllers then adopt what exists in the cloud.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BackupContent, BackupError } from './backup-archive';
import { lastLines, ManagementTarget } from './backup';
import { Clusterctl } from './clusterctl';

export interface RestoreOptions {
  readonly content: BackupContent;
  readonly target: ManagementTarget;
  readonly clusterctl: Clusterctl;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (line: string) => void;
}

export async function restoreBackup(o: RestoreOptions): Promise<void> {
  const present = new Set((await o.target.api.clusters()).map((c) => `${c.namespace}/${c.name}`));
  const clash = o.content.header.clusters.filter((c) => present.has(c));
  if (clash.length > 0) {
    throw new BackupError(`the management cluster already holds ${clash.join(', ')}: a restore goes into a management cluster without these clusters (two management clusters reconciling one cluster fight over its machines)`);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-restore-'));
  try {
    for (const [ns, files] of Object.entries(o.content.namespaces)) {
      const dir = path.join(work, ns);
      fs.mkdirSync(dir, { mode: 0o700 });
      // with the labels it had (clusterctl would create it bare, and the workload stack's plan would differ)
      const meta = o.content.namespaceMetadata[ns];
      if (meta && (await o.target.api.ensureNamespace(ns, { labels: { ...meta.labels }, annotations: { ...meta.annotations } }))) o.progress(`${ns}: namespace created`);
      for (const [name, text] of Object.entries(files)) {
        if (!/^[A-Za-z0-9][-A-Za-z0-9_.]*\.yaml$/.test(name)) throw new BackupError(`the backup holds a file named ${JSON.stringify(name.slice(0, 80))}: not a clusterctl move file`);
        fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
      }
      const t0 = Date.now();
      const args = ['move', '--from-directory', dir, '--to-kubeconfig', o.target.kubeconfigFile, ...(o.target.context ? ['--to-kubeconfig-context', o.target.context] : [])];
      const r = await o.clusterctl.run(args, o.env, (l) => o.progress(`  ${ns}: ${l}`));
      if (r.code !== 0) throw new BackupError(`clusterctl move --from-directory of namespace ${ns} failed (exit ${r.code}): ${lastLines(r.output)}`);
      o.progress(`${ns}: ${Object.keys(files).length} objects restored in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const after = new Set((await o.target.api.clusters()).map((c) => `${c.namespace}/${c.name}`));
  const missing = o.content.header.clusters.filter((c) => !after.has(c));
  if (missing.length > 0) throw new BackupError(`after the restore the management cluster lacks ${missing.join(', ')}: are the Cluster API CRDs labelled as clusterctl init labels them (clusterctl.cluster.x-k8s.io)?`);
}
