/** Who can reach a workload cluster's Kubernetes API, and the warning when that is everyone. */
import { lastAddress, parseCidr } from './cidr';

/** The CIDR that makes an API allow list explicitly open to everyone. */
export const OPEN_TO_ANYWHERE = '0.0.0.0/0';

/**
 * Whether a workload cluster's API answers anyone: the default (empty list) or the explicit
 * `["0.0.0.0/0"]`. Both synthesize the same (no allow list at all).
 */
export function apiOpenToAnywhere(apiAllowedCidrs: readonly string[]): boolean {
  return apiAllowedCidrs.length === 0 || coversEveryAddress(apiAllowedCidrs);
}

/**
 * Whether the CIDRs together cover every address (`0.0.0.0/0`, or pieces such as
 * `[0.0.0.0/1, 128.0.0.0/1]` that add up to it). The schema takes IPv4 CIDRs only; entries that
 * are no CIDR (`none`) cover nothing.
 */
export function coversEveryAddress(cidrs: readonly string[]): boolean {
  const ranges = cidrs
    .map((c) => parseCidr(c))
    .filter((c) => c !== undefined)
    .map((c) => [c.network, lastAddress(c)] as const)
    .sort((a, b) => a[0] - b[0]);
  let next = 0; // first address not covered yet
  for (const [first, last] of ranges) {
    if (first > next) return false;
    next = Math.max(next, last + 1);
    if (next > 0xffffffff) return true;
  }
  return false;
}

/** The warning for a management VM port (API or SSH) that answers anyone; undefined when the list restricts it. */
export function openManagementWarning(field: 'apiAllowedCidrs' | 'sshAllowedCidrs', cidrs: readonly string[]): string | undefined {
  if (!coversEveryAddress(cidrs)) return undefined;
  const what = field === 'apiAllowedCidrs' ? 'the management cluster\'s Kubernetes API (it holds every workload cluster\'s credentials)' : 'SSH to the management VM';
  return `${JSON.stringify(cidrs)} covers every address: ${what} is reachable from anywhere; list only the networks that need it (${field === 'apiAllowedCidrs' ? 'the machines that run cdktf deploy' : 'your operators\' networks'})`;
}

/**
 * The warning for a cluster left open by default; `undefined` when the list restricts the API or
 * says `["0.0.0.0/0"]` on purpose.
 */
export function openApiWarning(clusterName: string, apiAllowedCidrs: readonly string[]): string | undefined {
  if (apiAllowedCidrs.length > 0) return undefined;
  return `the Kubernetes API of cluster "${clusterName}" is reachable from anywhere (the default); list the networks that need it, ["none"] for internal only, or ["${OPEN_TO_ANYWHERE}"] to keep it open and silence this warning`;
}
