import { Construct } from 'constructs';
import {
  CAPO_CONTROLLER,
  CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES,
  controllerInstanceCreateTimeoutMinutes,
  INSTANCE_CREATE_TIMEOUT_ENV,
} from '../capi/instance-create-timeout';
import { fieldManagerName } from '../config/naming';
import { EnvironmentConfig, ResolvedCluster } from '../config/resolve';
import { Env } from '../gen/kubernetes/env';

/**
 * CAPO reads its instance create timeout from one environment variable for all clusters: set it to
 * the environment's largest value (nothing when that is CAPO's default), under a field manager of
 * this cluster so the value stays while any cluster that wants it exists.
 */
export function capoInstanceCreateTimeout(scope: Construct, env: EnvironmentConfig, cluster: ResolvedCluster): Env | undefined {
  const minutes = controllerInstanceCreateTimeoutMinutes(env);
  if (minutes === CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES) return undefined;
  return new Env(scope, 'CapoInstanceCreateTimeout', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CAPO_CONTROLLER.deployment, namespace: CAPO_CONTROLLER.namespace },
    container: CAPO_CONTROLLER.container,
    env: [{ name: INSTANCE_CREATE_TIMEOUT_ENV, value: String(minutes) }],
    fieldManager: fieldManagerName(env.name, cluster.name),
    force: true,
  });
}
