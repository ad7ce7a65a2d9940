/**
 * CAPO instance create timeout (old `capo_instance_create_timeout`).
 *
 * CAPO v0.14 has no API field for it: the controller reads the environment variable
 * `CLUSTER_API_OPENSTACK_INSTANCE_CREATE_TIMEOUT` (minutes, default 5) once per process and uses it
 * for every cluster (it bounds the wait for root volumes to become available). The per-cluster value
 * of the environment file is therefore:
 * - recorded on the OpenStackCluster as the annotation below (documentation, not read by CAPO), and
 * - folded into one controller setting: every workload stack of the environment sets the variable
 *   on the capo-controller-manager Deployment to the largest value of all its clusters (each with
 *   its own field manager, so destroying one cluster keeps the others' setting), and none does
 *   when that is CAPO's default.
 */
import { EnvironmentConfig } from '../config';

export const INSTANCE_CREATE_TIMEOUT_ANNOTATION = 'capi-openstack-cdktf/instance-create-timeout-minutes';
export const INSTANCE_CREATE_TIMEOUT_ENV = 'CLUSTER_API_OPENSTACK_INSTANCE_CREATE_TIMEOUT';
/** CAPO's built-in default (minutes). */
export const CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES = 5;

/** Where clusterctl installs CAPO's controller. */
export const CAPO_CONTROLLER = { namespace: 'capo-system', deployment: 'capo-controller-manager', container: 'manager' } as const;

/** The value for the CAPO controller: the largest per-cluster timeout (CAPO's default without clusters). */
export function controllerInstanceCreateTimeoutMinutes(env: EnvironmentConfig): number {
  if (env.clusters.length === 0) return CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES;
  return Math.max(...env.clusters.map((c) => c.spec.instanceCreateTimeoutMinutes));
}
