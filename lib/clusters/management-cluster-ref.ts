/**
 * What a workload cluster needs from its management cluster: how to reach its API and which
 * OpenStack pieces it created. Implemented by `ManagementCluster` and `ManagementStack`; values may
 * be tokens, including cross-stack references.
 */
export interface IManagementCluster {
  /** `https://<floating ip>:6443`. */
  readonly apiEndpoint: string;
  /** Public address of the management VM; workload APIs allow it when they are restricted. */
  readonly floatingIp: string;
  /** CA of the management Kubernetes API (PEM). */
  readonly caCertificatePem: string;
  /** Admin client certificate (PEM). */
  readonly adminCertificatePem: string;
  /** Admin client key (PEM). Sensitive. */
  readonly adminKeyPem: string;
  /** External network of the environment (floating IPs, router gateways). */
  readonly externalNetworkId: string;
  readonly externalNetworkName: string;
  /** Security group workload machines carry to allow SSH/ICMP from the management network. */
  readonly nodeAccessSecurityGroupName: string;
  /**
   * The environment the management cluster belongs to: a `WorkloadCluster` of another environment
   * refuses it.
   * @default - not checked
   */
  readonly environmentName?: string;
}
