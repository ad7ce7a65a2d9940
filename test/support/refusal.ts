/** The EnvironmentConfigError `run` throws; any other outcome fails the test. */
import { EnvironmentConfigError } from '../../lib/config';

export function refusalOf(run: () => unknown): EnvironmentConfigError {
  try {
    run();
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e;
    throw e;
  }
  throw new Error('expected the environment to be refused');
}
