/**
 * An environment built in code, read back from what the app synthesized (the settings its cluster
 * constructs recorded, lib/config/stack-records.ts): validated and resolved again with the same
 * rules, so a command works on it as on an environment file.
 */
import { ConfigIssue, EnvironmentConfigError } from './errors';
import { ENVIRONMENT_NAME, environmentNameIssue } from './environment-name';
import { EnvironmentConfig } from './resolve';
import { validateEnvironment } from './validate';
import { reservedKeys } from './yaml-safety';

/**
 * @param name the environment's name as recorded
 * @param spec its recorded settings
 * @param appDir the directory the app ran in (the cdktf project): relative paths of the settings
 *               resolve against it, as they did at synthesis
 * @param label how messages name it, e.g. `"acme" (built in code, recorded in cdktf.out/stacks/x/cdk.tf.json)`
 * @throws EnvironmentConfigError listing every problem, each with its field path
 */
export function environmentFromRecord(name: string, spec: unknown, appDir: string, label: string): EnvironmentConfig {
  const earlier: ConfigIssue[] = ENVIRONMENT_NAME.test(name) ? [] : [environmentNameIssue(name, '(name)')];
  const reserved = reservedKeys(spec, []);
  if (earlier.length > 0 || reserved.length > 0) throw new EnvironmentConfigError(label, [...earlier, ...reserved], 'code');
  return validateEnvironment(name, label, spec, { at: () => undefined, atKey: () => undefined }, [], 'code', appDir);
}
