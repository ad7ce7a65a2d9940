/** Teardown of what a workload cluster's controllers (OCCM, Cinder CSI) left in OpenStack. No cdktf here. */
export * from './matchers';
export * from '../openstack-session';
export * from './clouds-yaml';
export { CleanupError, cleanupClusterLeftovers } from './leftovers';
export type { CleanupOptions, CleanupResult, ResourceKind, ResourceRef } from './leftovers';
export { CliConfigError, CSI_DEFAULT_CLUSTER, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK, readCliConfig, runCli } from './cli';
export type { CliConfig } from './cli';
