import { KIND_POD_SUBNET, KIND_SERVICE_SUBNET, METADATA_ADDRESS } from './paths';

export interface NoProxyProps {
  /** CIDR of the management subnet. */
  readonly managementCidr: string;
  /**
   * Extra entries (hosts, domains, CIDRs).
   * @default []
   */
  readonly extra?: readonly string[];
}

/**
 * The NO_PROXY list for the management VM: loopback, the metadata address, the management subnet,
 * the kind pod and service ranges, in-cluster DNS suffixes, then the operator's extras. No duplicates,
 * order kept.
 */
export function buildNoProxy(props: NoProxyProps): string[] {
  const entries = [
    'localhost',
    '127.0.0.1',
    METADATA_ADDRESS,
    props.managementCidr,
    KIND_POD_SUBNET,
    KIND_SERVICE_SUBNET,
    '.svc',
    '.cluster.local',
    ...(props.extra ?? []),
  ].map((e) => e.trim());
  for (const e of entries) {
    if (e === '' || /[\s,"'\\]/.test(e)) {
      throw new Error(`noProxy: expected a host, domain or CIDR without spaces, commas or quotes, found "${e}"`);
    }
  }
  return [...new Set(entries)];
}
