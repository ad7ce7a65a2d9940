import { EXIT_BAD_CONFIG, EXIT_FAILED } from '../env-config';

/** A failure the operator can act on: printed as one line (or the given block), never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    /** Process exit code: EXIT_FAILED (1), or EXIT_BAD_CONFIG (2) for wrong usage. */
    public readonly exitCode = EXIT_FAILED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong usage of a command: exit code 2, with a pointer to its help. */
export function usageError(command: string, message: string): CliError {
  const cmd = command ? `capi-openstack ${command}` : 'capi-openstack';
  return new CliError(`${cmd}: ${message} (see: ${cmd} --help)`, EXIT_BAD_CONFIG);
}
