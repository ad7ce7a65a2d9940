import { describeFound } from '../config/errors';
import { KubernetesProviderConfig } from '../gen/kubernetes/provider';
import { IManagementCluster } from './management-cluster-ref';

/**
 * How the kubernetes provider of a workload stack reaches a management cluster made by this
 * library: its API endpoint, CA and admin client certificate and key. Use it in a stack other than
 * the management cluster's (its values then arrive as cross-stack references, known at plan time):
 * `new KubernetesProvider(stack, 'Management', managementKubernetesConnection(management))`.
 */
export function managementKubernetesConnection(management: IManagementCluster): KubernetesProviderConfig {
  if (typeof management !== 'object' || management === null) {
    throw new Error(`managementKubernetesConnection(management): expected a management cluster (a ManagementCluster, a ManagementStack or another IManagementCluster), found ${describeFound(management)}`);
  }
  return {
    host: management.apiEndpoint,
    clusterCaCertificate: management.caCertificatePem,
    clientCertificate: management.adminCertificatePem,
    clientKey: management.adminKeyPem,
  };
}
