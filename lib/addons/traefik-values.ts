/** What the catalogue's Traefik chart is given: Traefik as the cluster's Gateway API implementation. */

/** Name of the Gateway the Traefik chart creates for the cluster (in the release's namespace). */
export const TRAEFIK_GATEWAY_NAME = 'traefik-gateway';
/** Traefik's entry point of the HTTP listener (the chart's `web` port; the Service maps port 80 to it). */
export const TRAEFIK_WEB_PORT = 8000;

/**
 * Gateway API only: no Ingress provider and no IngressClass (ingress-nginx may still serve the
 * cluster's Ingresses while they move, and two default IngressClasses would leave new Ingresses to
 * chance), none of Traefik's own route CRDs read (fewer rights for its service account). One shared
 * Gateway with an HTTP listener that takes routes from every namespace, as ingress-nginx took
 * Ingresses from every namespace; further Gateways (HTTPS with certificates) are the operator's.
 * No calls home: the chart's default version check reaches Traefik's servers from every cluster
 * (anonymous usage data is off by the chart's default and stays off).
 */
export const TRAEFIK_VALUES: Record<string, unknown> = {
  global: { checkNewVersion: false, sendAnonymousUsage: false },
  providers: { kubernetesGateway: { enabled: true }, kubernetesIngress: { enabled: false }, kubernetesCRD: { enabled: false } },
  ingressClass: { enabled: false },
  gatewayClass: { enabled: true },
  gateway: { enabled: true, name: TRAEFIK_GATEWAY_NAME, listeners: { web: { port: TRAEFIK_WEB_PORT, protocol: 'HTTP', namespacePolicy: { from: 'All' } } } },
};
