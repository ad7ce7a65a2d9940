/**
 * The cloud login of the management stack. By default the workload clusters' own one; with
 * `management.cloud`, a second clouds.yaml entry for another project of the same cloud, so that a
 * workload cluster's credential (role `member` in its own project, readable on every node) cannot
 * snapshot, clone or rescue the management VM's volume or read the state bucket.
 */
import * as path from 'path';
import { CloudLookup, checkedCloudEntry } from './cloud-entry';
import { cloudsFileCandidates } from './clouds-file';
import { EnvironmentSpec } from './environment-schema';
import { ConfigIssue } from './errors';
import type { ResolvedCloud } from './resolve';

/** `cloud` when the environment names no management.cloud; problems go to `issues`. */
export function resolveManagementCloud(spec: EnvironmentSpec, baseDir: string, cloud: ResolvedCloud, workloadProject: string | undefined, lookupCloud: CloudLookup, issues: ConfigIssue[]): ResolvedCloud {
  const name = spec.management.cloud;
  if (name === undefined) return cloud;
  if (name === spec.cloud.name) {
    issues.push({ path: 'management.cloud', message: `expected a clouds.yaml entry other than cloud.name ("${name}"): the management VM belongs in a project the workload clusters' credentials cannot reach` });
    return cloud;
  }
  const explicitFile = spec.cloud.cloudsFile ? path.resolve(baseDir, spec.cloud.cloudsFile) : undefined;
  const before = issues.length;
  const entry = checkedCloudEntry(name, explicitFile, lookupCloud, issues, 'management.cloud');
  if (!entry) {
    if (issues.length === before) {
      const where = explicitFile ? `${explicitFile} (cloud.cloudsFile)` : `a clouds.yaml (searched: ${cloudsFileCandidates().join(', ')})`;
      issues.push({ path: 'management.cloud', message: `expected an entry "${name}" in ${where}, found none: the management stack logs in with it, so it must exist where the stacks are synthesized` });
    }
    return cloud;
  }
  if (entry.project !== undefined && entry.project === workloadProject) {
    issues.push({ path: 'management.cloud', message: `expected an entry for another project than cloud.name's, found "${name}" in ${entry.file} logging in to the same project (${entry.project.replace(/^(id|name):/, '')})` });
  }
  return { ...cloud, name, authUrl: entry.authUrl ?? cloud.authUrl, region: spec.cloud.region ?? entry.region ?? cloud.region, cloudsFile: entry.file };
}
