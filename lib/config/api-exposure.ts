/** Who can reach a workload cluster's Kubernetes API, and the warning when that is everyone. */

/** The CIDR that makes an API allow list explicitly open to everyone. */
export const OPEN_TO_ANYWHERE = '0.0.0.0/0';

/**
 * Whether a workload cluster's API answers anyone: the default (empty list) or the explicit
 * `["0.0.0.0/0"]`. Both synthesize the same (no allow list at all).
 */
export function apiOpenToAnywhere(apiAllowedCidrs: readonly string[]): boolean {
  return apiAllowedCidrs.length === 0 || apiAllowedCidrs.includes(OPEN_TO_ANYWHERE);
}

/**
 * The warning for a cluster left open by default; `undefined` when the list restricts the API or
 * says `["0.0.0.0/0"]` on purpose.
 */
export function openApiWarning(clusterName: string, apiAllowedCidrs: readonly string[]): string | undefined {
  if (apiAllowedCidrs.length > 0) return undefined;
  return `the Kubernetes API of cluster "${clusterName}" is reachable from anywhere (the default); list the networks that need it, ["none"] for internal only, or ["${OPEN_TO_ANYWHERE}"] to keep it open and silence this warning`;
}
