/** A failure the operator can act on: printed as one line (or the given block), never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    /** Process exit code: 1 = failure, 2 = wrong usage. */
    public readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong usage of a command: exit code 2, with a pointer to its help. */
export function usageError(command: string, message: string): CliError {
  const cmd = command ? `capi-openstack ${command}` : 'capi-openstack';
  return new CliError(`${cmd}: ${message} (see: ${cmd} --help)`, 2);
}
