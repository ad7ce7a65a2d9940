/** Environments built in code: the same rules and messages as an environment file, without lines. */
import { EnvironmentInput } from './environment-schema';
import { ConfigIssue, EnvironmentConfigError } from './errors';
import { ENVIRONMENT_NAME, environmentNameIssue } from './environment-name';
import { EnvironmentConfig } from './resolve';
import { validateEnvironment } from './validate';
import { reservedKeys } from './yaml-safety';

/**
 * Validates and resolves an environment given as an object (what an environment file holds, as
 * data): the same schema, cross-field checks and defaults as `loadEnvironmentFile`, with the same
 * messages minus file and line. Relative file paths in it (`cloud.caCertificateFile`,
 * `existingManagementCluster.kubeconfigFile`, …) resolve against the current directory.
 *
 * @param name the environment name (as the file name would give it): stacks are `<name>-management`
 *             and `<name>-<cluster>`, resources `<prefix>-<name>-…`
 * @throws EnvironmentConfigError listing every problem, each with its field path
 */
export function environmentFromObject(name: string, input: EnvironmentInput): EnvironmentConfig {
  const earlier: ConfigIssue[] = ENVIRONMENT_NAME.test(name) ? [] : [environmentNameIssue(name, '(name)')];
  const where = `"${name}" (given in code)`;
  // as in a file: such a key would vanish into (or shadow) the prototype instead of being checked
  const reserved = reservedKeys(input, []);
  if (reserved.length > 0) throw new EnvironmentConfigError(where, [...earlier, ...reserved], 'code');
  return validateEnvironment(name, where, input, { at: () => undefined, atKey: () => undefined }, earlier, 'code');
}
