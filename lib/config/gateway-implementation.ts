/**
 * Which Gateway API implementation `addons.gatewayApi` installs. Cilium's comes with the Cilium CNI
 * (the agent carries the data path); Traefik runs as pods of its own, so it works with any CNI.
 * Unset, a cluster keeps what the setting meant before it had a choice: Cilium's gateway with Cilium,
 * and Traefik where that was refused (Calico).
 */
export type GatewayImplementation = 'cilium' | 'traefik';

export const GATEWAY_IMPLEMENTATIONS: readonly GatewayImplementation[] = ['cilium', 'traefik'];

/** What `addons.gatewayApi.implementation` defaults to, worded for descriptions. */
export const GATEWAY_IMPLEMENTATION_DEFAULT = 'Default: cilium with cni.type cilium, else traefik.';

export interface GatewayApiChoice {
  readonly cni: { readonly type: string };
  readonly gatewayApi: { readonly implementation?: GatewayImplementation };
}

export function gatewayImplementation(addons: GatewayApiChoice): GatewayImplementation {
  return addons.gatewayApi.implementation ?? (addons.cni.type === 'cilium' ? 'cilium' : 'traefik');
}
