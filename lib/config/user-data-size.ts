/**
 * The user data of the management VM and of every workload node against Nova's limit (see
 * user-data-limits.ts), estimated from the environment where `validate` runs, and the node files
 * against Cluster API's limit of an inline file; each problem names the field to shrink.
 */
import type { PathIssue } from './cross-checks';
import { formatPath } from './errors';
import { NODE_FILE_CONTENT_LIMIT, hostsTomlLength, nodeUserDataEstimate, storedCertificateFile } from './node-user-data-estimate';
import type { EnvironmentConfig } from './resolve';
import { NOVA_USER_DATA_BASE64_LIMIT, NOVA_USER_DATA_LIMIT_BYTES, UserDataEstimate, formatBytes } from './user-data-limits';
import { vmUserDataEstimate } from './vm-user-data-estimate';

export function userDataSizeIssues(env: EnvironmentConfig): PathIssue[] {
  const documents: [string, UserDataEstimate][] = [
    ...(env.spec.existingManagementCluster ? [] : [['the management VM', vmUserDataEstimate(env)] as [string, UserDataEstimate]]),
    ...env.clusters.flatMap((c) => [
      [`each control-plane node of cluster ${c.name}`, nodeUserDataEstimate(env, c)] as [string, UserDataEstimate],
      ...c.spec.nodeGroups.map((g, i) => [`each node of cluster ${c.name}, node group ${g.name}`, nodeUserDataEstimate(env, c, i)] as [string, UserDataEstimate]),
    ]),
  ];
  return [...nodeFileIssues(env), ...documents.filter(([, e]) => e.bytes > NOVA_USER_DATA_LIMIT_BYTES).map(([what, e]) => tooBig(what, e))];
}

function tooBig(what: string, estimate: UserDataEstimate): PathIssue {
  const variable = [...estimate.parts].filter((p) => !p.fixed).sort((a, b) => b.bytes - a.bytes);
  const fixed = estimate.parts.filter((p) => p.fixed).reduce((n, p) => n + p.bytes, 0);
  const shown = variable.slice(0, 3).map((p) => `${formatPath(p.path)} ${formatBytes(p.bytes)}`);
  return {
    path: variable[0]?.path ?? estimate.parts[0].path,
    message: `expected the user data of ${what} to fit Nova's limit of ${formatBytes(NOVA_USER_DATA_LIMIT_BYTES)} (${NOVA_USER_DATA_BASE64_LIMIT} characters once base64-encoded), found about ${formatBytes(estimate.bytes)}: ${formatBytes(fixed)} that every such document needs${shown.length > 0 ? `, then ${shown.join(', ')}` : ''}; shrink the largest (fewer or shorter certificates, endpoints or noProxy entries)`,
  };
}

/** Certificate files and hosts.toml must fit one node file each (the builders gzip certificates past the limit). */
function nodeFileIssues(env: EnvironmentConfig): PathIssue[] {
  if (env.clusters.length === 0) return [];
  const pems: [PropertyKey[], string | undefined][] = [
    [env.spec.cloud.caCertificateFile ? ['cloud', 'caCertificateFile'] : ['cloud', 'name'], env.cloud.caCertificatePem],
    ...env.registryMirrors.map((m, i): [PropertyKey[], string | undefined] => [['registryMirrors', i, 'caCertificateFile'], m.caCertificatePem]),
  ];
  const issues: PathIssue[] = [];
  for (const [path, pem] of pems) {
    const stored = pem === undefined ? undefined : storedCertificateFile(pem);
    if (stored && stored.length > NODE_FILE_CONTENT_LIMIT) {
      issues.push({ path, message: `expected certificates that fit a file on the workload nodes (Cluster API takes at most ${NODE_FILE_CONTENT_LIMIT} characters; longer ones are stored gzip+base64), found ${stored.length} characters after gzip+base64 (${pem!.length} before); keep only the CA certificates the nodes need` });
    }
  }
  env.registryMirrors.forEach((m, i) => {
    const length = hostsTomlLength(m.registry, m.endpoints, m.caCertificatePem !== undefined);
    if (length > NODE_FILE_CONTENT_LIMIT) {
      issues.push({ path: ['registryMirrors', i, 'endpoints'], message: `expected endpoints that fit containerd's hosts.toml in one file on the workload nodes (Cluster API takes at most ${NODE_FILE_CONTENT_LIMIT} characters), found about ${length} characters for ${m.endpoints.length} endpoints; list fewer or shorter ones` });
    }
  });
  return issues;
}
