/**
 * What `ManagementCluster` refuses or reports beyond its own wiring: props that are no loaded
 * environment or one that brings its own management cluster, a second management cluster of the
 * environment (or any construct sharing its names) in the app, an OpenStack provider logged in to
 * another cloud entry, and the environment's warnings as cdktf annotations.
 */
import { Construct } from 'constructs';
import { managementOwnedNames, namedEnvironment } from '../config/owned-names';
import { EnvironmentConfig } from '../config/resolve';
import { annotateConfigWarnings } from '../terraform/config-warnings';
import { requireOneFramework } from '../terraform/framework-copy';
import { claimOwnedNames } from '../terraform/owned-names-registry';
import { PropChecks } from '../terraform/prop-checks';
import { requireProviderCloud } from '../terraform/provider-cloud';

/** Throws on props synthesis can already see are wrong; registers the checks that need the whole app. */
export function guardManagementCluster(scope: Construct, props: { readonly environment: EnvironmentConfig } | undefined): void {
  requireOneFramework(scope, 'ManagementCluster');
  const checks = new PropChecks('ManagementCluster', scope);
  const env: unknown = props?.environment;
  if (checks.environment('environment', env) && env.spec.existingManagementCluster) {
    checks.check(
      false,
      'environment',
      'an environment whose management cluster this library creates',
      `environment "${env.name}" with existingManagementCluster (its workload clusters go to that cluster: give them management { kind: 'existing' } and build no ManagementCluster)`,
    );
  }
  checks.done();
  const environment = env as EnvironmentConfig;
  claimOwnedNames({
    construct: scope,
    type: 'ManagementCluster',
    prop: 'environment',
    subject: `the management cluster of environment "${environment.name}"`,
    twice: "an environment has one: build it once and pass it to the environment's WorkloadClusters (destroying either stack would delete the VM the other manages)",
    parts: `prefix "${environment.spec.prefix}" + environment "${environment.name}"`,
    names: managementOwnedNames(namedEnvironment(environment)),
  });
  requireProviderCloud(scope, 'ManagementCluster', 'environment', {
    name: environment.managementCloud.name,
    field: environment.spec.management.cloud !== undefined ? 'management.cloud' : 'cloud.name',
    fix: 'environmentOpenstackProvider(stack, environment, environment.managementCloud) adds the right one',
  });
  // the workload clusters' warnings go to their own constructs
  annotateConfigWarnings(scope, environment, (w) => !w.path.startsWith('clusters.'));
}
