/** The message a construct refuses its props with, or `(no error)`. */
export function errorOf(build: () => void): string {
  try {
    build();
  } catch (e) {
    return (e as Error).message;
  }
  return '(no error)';
}

/** Valid ManagementNetwork props to spoil one at a time. */
export const NETWORK = { namePrefix: 'capi-x', cidr: '10.0.0.0/24', allocationPoolStart: '10.0.0.11', allocationPoolEnd: '10.0.0.254', externalNetworkId: 'ext' };
