/** A kubeconfig file for environments with existingManagementCluster (the loader refuses a missing one). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

let file: string | undefined;

/** Absolute path of an empty but well-formed kubeconfig, written once per test process. */
export function existingKubeconfig(): string {
  if (file && fs.existsSync(file)) return file;
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'byo-kubeconfig-')), 'kubeconfig');
  fs.writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
  return file;
}
