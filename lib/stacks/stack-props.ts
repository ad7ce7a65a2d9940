import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
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
