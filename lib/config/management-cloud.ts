/**
 * The cloud login of the management stack. By default the workload clusters' own one; with
 * `management.cloud`, a second clouds.yaml entry for another project of the same cloud, so that a
 * workload cluster's credential (role `member` in its own project, readable on every node) cannot
 * snapshot, clone or rescue the management VM's volume or read the state bucket.
 *
 * Separate projects are the production default: sharing one gets a warning, and so does a pair of
 * entries whose projects cannot be compared (an entry that names no project, or names it another way).
 */
import * as path from 'path';
import { CloudLookup, checkedCloudEntry } from './cloud-entry';
import { CloudEntry, cloudsFileCandidates } from './clouds-file';
import { EnvironmentSpec } from './environment-schema';
import { ConfigIssue } from './errors';
import type { ResolvedCloud } from './resolve';

/** Where docs/security.md explains the remedy. */
const REMEDY = 'docs/security.md, "The management VM in a project of its own"';

/**
 * `cloud` when the environment names no management.cloud; problems go to `issues`, a shared or
 * uncertain project separation to `warnings`. `workloadEntry` is cloud.name's entry, if found.
 */
export function resolveManagementCloud(
  spec: EnvironmentSpec,
  baseDir: string,
  cloud: ResolvedCloud,
  workloadEntry: CloudEntry | undefined,
  lookupCloud: CloudLookup,
  issues: ConfigIssue[],
  warnings: ConfigIssue[] = [],
): ResolvedCloud {
  const name = spec.management.cloud;
  // without a management VM (existingManagementCluster) there is nothing of ours to keep apart
  const warn = spec.existingManagementCluster ? () => undefined : (message: string) => warnings.push({ path: 'management.cloud', message });
  if (name === undefined) {
    const clusters = workloadClusters(spec);
    if (clusters.length > 0) {
      warn(
        `the management VM and its boot volume (which holds the management cluster's CA key) share the project of cloud.name's entry "${spec.cloud.name}" with the workload clusters (${clusters}): ` +
          `any node's credential, member of that project, can snapshot or clone that volume; set management.cloud to a clouds.yaml entry for another project of the cloud (${REMEDY})`,
      );
    }
    return cloud;
  }
  if (name === spec.cloud.name) {
    issues.push({ path: 'management.cloud', message: `expected a clouds.yaml entry other than cloud.name ("${name}"): the management VM belongs in a project the workload clusters' credentials cannot reach` });
    return cloud;
  }
  const explicitFile = spec.cloud.cloudsFile ? path.resolve(baseDir, spec.cloud.cloudsFile) : undefined;
  const before = issues.length;
  const entry = checkedCloudEntry(name, explicitFile, lookupCloud, issues, 'management.cloud', spec.cloud.allowPlainHttp);
  if (!entry) {
    if (issues.length === before) {
      const where = explicitFile ? `${explicitFile} (cloud.cloudsFile)` : `a clouds.yaml (searched: ${cloudsFileCandidates().join(', ')})`;
      issues.push({ path: 'management.cloud', message: `expected an entry "${name}" in ${where}, found none: the management stack logs in with it, so it must exist where the stacks are synthesized` });
    }
    return cloud;
  }
  const projects = compareProjects(spec.cloud.name, workloadEntry, name, entry);
  if (projects.kind === 'same') {
    issues.push({ path: 'management.cloud', message: `expected an entry for another project than cloud.name's, found "${name}" in ${entry.file} logging in to the same project (${shownProject(entry.project!)})` });
  } else if (projects.kind === 'unknown') {
    warn(`cannot tell whether "${name}" logs in to another project than cloud.name's entry "${spec.cloud.name}": ${projects.why}; ${projects.fix} (${REMEDY})`);
  }
  return { ...cloud, name, authUrl: entry.authUrl ?? cloud.authUrl, region: spec.cloud.region ?? entry.region ?? cloud.region, cloudsFile: entry.file };
}

/** The clusters that get a stack (controlPlane.count above 0), for a message: `a, b, c and 4 more`. */
function workloadClusters(spec: EnvironmentSpec): string {
  const names = Object.entries(spec.clusters)
    .filter(([, c]) => c.controlPlane.count > 0)
    .map(([n]) => n);
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

type ProjectComparison = { readonly kind: 'same' | 'different' } | { readonly kind: 'unknown'; readonly why: string; readonly fix: string };

const NAME_THE_PROJECT = 'auth.project_id, or auth.project_name with auth.project_domain_name';

/**
 * Whether two entries log in to the same project, as far as their text tells: clouds-file.ts gives
 * a project as `id:<id>` or `name:<name>@<domain>`, nothing for an application credential.
 */
function compareProjects(workloadName: string, workload: CloudEntry | undefined, managementName: string, management: CloudEntry): ProjectComparison {
  if (!workload) {
    return { kind: 'unknown', why: `no entry "${workloadName}" was found in clouds.yaml at synthesis`, fix: `add it where the stacks are synthesized, naming its project (${NAME_THE_PROJECT})` };
  }
  const unnamed = [
    [workloadName, workload],
    [managementName, management],
  ].filter(([, e]) => (e as CloudEntry).project === undefined) as [string, CloudEntry][];
  if (unnamed.length > 0) {
    const which = unnamed.map(([n, e]) => `"${n}" in ${e.file}`).join(' and ');
    return {
      kind: 'unknown',
      why: `${which} name${unnamed.length === 1 ? 's' : ''} no project`,
      fix: `name it in both entries (${NAME_THE_PROJECT}); an application credential entry cannot name one: then check in Keystone that the two credentials belong to different projects`,
    };
  }
  const [w, m] = [workload.project!, management.project!];
  if (w === m) return { kind: 'same' };
  if (w.slice(0, 3) !== m.slice(0, 3)) {
    const form = (n: string, p: string) => `"${n}" by ${p.startsWith('id:') ? 'id' : 'name'} (${shownProject(p)})`;
    return {
      kind: 'unknown',
      why: `${form(workloadName, w)} and ${form(managementName, m)} name their projects in different ways`,
      fix: 'name both the same way: auth.project_id in both, or auth.project_name with auth.project_domain_name in both',
    };
  }
  // the default domain has id "default" and name "Default": one domain written two ways
  const [wName, wDomain] = splitNamed(w);
  const [mName, mDomain] = splitNamed(m);
  if (w.startsWith('name:') && wName === mName && wDomain !== mDomain && wDomain.toLowerCase() === mDomain.toLowerCase()) {
    return {
      kind: 'unknown',
      why: `both name project "${wName}", in domains "${wDomain}" and "${mDomain}", which may be one domain written as id and as name`,
      fix: 'write the domain the same way in both (auth.project_domain_id in both, or auth.project_domain_name in both)',
    };
  }
  return { kind: 'different' };
}

/** `name:<name>@<domain>` as [name, domain]. */
function splitNamed(project: string): [string, string] {
  const at = project.lastIndexOf('@');
  return [project.slice('name:'.length, at), project.slice(at + 1)];
}

function shownProject(project: string): string {
  return project.replace(/^(id|name):/, '');
}
