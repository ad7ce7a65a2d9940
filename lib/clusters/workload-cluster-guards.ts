/**
 * What `WorkloadCluster` refuses or reports beyond its own wiring: props synthesis can see are
 * wrong (no loaded environment, a cluster of another environment or a copy made by hand, an unknown
 * management kind, a management cluster of another environment), any construct of the app sharing
 * its names (its own and those CAPO gives the cluster's resources), an OpenStack provider logged in to another cloud entry, and the cluster's warnings as
 * cdktf annotations.
 */
import { Construct } from 'constructs';
import { capoResourceNames } from '../config/capo-names';
import { describeFound } from '../config/errors';
import { clusterOwnedNames, namedEnvironment } from '../config/owned-names';
import { EnvironmentConfig, ResolvedCluster } from '../config/resolve';
import { annotateConfigWarnings } from '../terraform/config-warnings';
import { requireOneFramework } from '../terraform/framework-copy';
import { claimOwnedNames } from '../terraform/owned-names-registry';
import { PropChecks } from '../terraform/prop-checks';
import { requireProviderCloud } from '../terraform/provider-cloud';
import { IManagementCluster } from './management-cluster-ref';

/** The props as a JavaScript caller may pass them: anything. */
interface UncheckedProps {
  readonly environment?: unknown;
  readonly cluster?: unknown;
  readonly management?: unknown;
}

/** What a management cluster object must carry (IManagementCluster's required fields). */
const MANAGEMENT_FIELDS: readonly (keyof IManagementCluster)[] = [
  'apiEndpoint',
  'floatingIp',
  'caCertificatePem',
  'adminCertificatePem',
  'adminKeyPem',
  'externalNetworkId',
  'externalNetworkName',
  'nodeAccessSecurityGroupName',
];

/** Throws on props synthesis can already see are wrong; registers the checks that need the whole app. */
export function guardWorkloadCluster(scope: Construct, props: object | undefined): void {
  requireOneFramework(scope, 'WorkloadCluster');
  const { environment: env, cluster, management } = (props ?? {}) as UncheckedProps;
  const checks = new PropChecks('WorkloadCluster', scope);
  const envOk = checks.environment('environment', env);
  checks.required('cluster', cluster).required('management', management);
  if (envOk && cluster) checkCluster(checks, env, cluster);
  if (management !== undefined && management !== null) checkManagement(checks, envOk ? env : undefined, management);
  checks.done();
  const environment = env as EnvironmentConfig;
  const own = cluster as ResolvedCluster;
  claimOwnedNames({
    construct: scope,
    type: 'WorkloadCluster',
    prop: 'cluster',
    subject: `cluster "${own.name}" of environment "${environment.name}"`,
    twice: "destroying either stack would delete the other's cluster; build each cluster once",
    parts: `prefix "${environment.spec.prefix}" + environment "${environment.name}" + cluster "${own.name}"`,
    names: [
      ...clusterOwnedNames(namedEnvironment(environment), own.name),
      { kind: 'Kubernetes namespace', name: own.namespace },
      // what CAPO creates for the cluster's objects, named after <namespace>-<cluster> (config/capo-names.ts)
      ...capoResourceNames(own.namespace, own.name).map((n) => ({ kind: `CAPO ${n.kind}`, name: n.name })),
    ],
  });
  requireProviderCloud(scope, 'WorkloadCluster', 'environment', { name: environment.cloud.name, field: 'cloud.name', fix: 'environmentOpenstackProvider(stack, environment) adds the right one' });
  annotateConfigWarnings(scope, environment, (w) => w.path.startsWith(`clusters.${own.name}.`));
}

/**
 * The cluster must be one of the environment's own (as `environment.clusters` resolved it): a
 * cluster of another environment would put its resources, named after that environment, into this
 * one's stacks, and a hand-made object skips the loader's checks and defaults.
 */
function checkCluster(checks: PropChecks, env: EnvironmentConfig, cluster: unknown): void {
  if (env.clusters.includes(cluster as ResolvedCluster)) return;
  const names = env.clusters.map((c) => c.name).join(', ') || 'none';
  const given = (typeof cluster === 'object' && cluster !== null ? cluster : {}) as Partial<ResolvedCluster>;
  const own = typeof given.stackName === 'string' ? env.clusters.find((c) => c.stackName === given.stackName) : undefined;
  const found =
    typeof given.name !== 'string'
      ? describeFound(cluster)
      : own
        ? `another object for cluster "${given.name}" (a copy made by hand)`
        : `cluster "${given.name}" of stack ${given.stackName ?? '(none)'}`;
  checks.check(false, 'cluster', `one of environment.clusters of environment "${env.name}" (${names}), as loaded (clusterNamed(environment, name) picks one)`, found);
}

/** `{ kind: 'created', cluster }` with a management cluster of this environment, or `{ kind: 'existing', … }`. */
function checkManagement(checks: PropChecks, env: EnvironmentConfig | undefined, management: unknown): void {
  if (typeof management !== 'object' || management === null) {
    checks.check(false, 'management', "{ kind: 'created', cluster } or { kind: 'existing' }", describeFound(management));
    return;
  }
  const m = management as { readonly kind?: unknown; readonly cluster?: unknown; readonly egressCidr?: string };
  if (m.kind === 'existing') {
    checks.cidr('management.egressCidr', m.egressCidr);
    return;
  }
  if (m.kind !== 'created') {
    checks.check(false, 'management.kind', '"created" (a management cluster built with this library) or "existing" (one that already runs CAPI)', describeFound(m.kind));
    return;
  }
  const created = m.cluster;
  const missing = typeof created === 'object' && created !== null ? MANAGEMENT_FIELDS.filter((f) => (created as Record<string, unknown>)[f] === undefined) : [];
  if (typeof created !== 'object' || created === null || missing.length > 0) {
    const found = missing.length > 0 ? `a mapping without ${missing.join(', ')}` : describeFound(created);
    checks.check(false, 'management.cluster', 'the management cluster of the environment (a ManagementCluster or ManagementStack)', found);
    return;
  }
  const of = (created as IManagementCluster).environmentName;
  if (env && of !== undefined && of !== env.name) {
    const at = created instanceof Construct ? ` at ${created.node.path}` : '';
    checks.check(false, 'management.cluster', `the management cluster of environment "${env.name}"`, `the management cluster of environment "${of}"${at} (each environment's workload clusters belong to its own)`);
  }
}
