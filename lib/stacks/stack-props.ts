import { Construct } from 'constructs';
import { LOADED_ENVIRONMENT, notAnEnvironment } from '../config/environment-shape';
import { describeFound } from '../config/errors';
import { EnvironmentConfig, ResolvedCloud } from '../config/resolve';
import { requireOneFramework } from '../terraform/framework-copy';
import { PropChecks } from '../terraform/prop-checks';

/**
 * The checks a stack runs before it reads its environment (its guard, providers and construct all
 * do): one framework in the app, and a loaded environment, else an error naming the stack and prop
 * rather than a TypeError from deep inside.
 */
export function checkStackEnvironment(stack: Construct, type: string, props: { readonly environment?: unknown } | undefined): EnvironmentConfig {
  requireOneFramework(stack, type);
  const checks = new PropChecks(type, stack);
  const env = props?.environment;
  checks.environment('environment', env);
  checks.done();
  return env as EnvironmentConfig;
}

/** The same check for the functions that take an environment (no construct of their own yet to name). */
export function checkEnvironmentArgument(fn: string, env: unknown): void {
  const other = notAnEnvironment(env);
  if (other !== undefined) throw new Error(`${fn}: environment: expected ${LOADED_ENVIRONMENT}, found ${other}`);
}

/** A resolved cloud of the environment (`environment.cloud` or `environment.managementCloud`). */
export function checkCloudArgument(fn: string, cloud: unknown): void {
  const name = typeof cloud === 'object' && cloud !== null ? (cloud as Partial<ResolvedCloud>).name : undefined;
  if (typeof name !== 'string') throw new Error(`${fn}: cloud: expected environment.cloud or environment.managementCloud, found ${describeFound(cloud)}`);
}
