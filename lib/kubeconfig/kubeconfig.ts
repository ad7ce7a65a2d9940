/** Kubeconfig documents as pure functions. Inputs may be cdktf token strings (single line). */
import { stringify } from 'yaml';

export interface KubeconfigProps {
  /** Name of the cluster and context entries. */
  readonly clusterName: string;
  /** API server URL, e.g. https://203.0.113.10:6443. */
  readonly server: string;
  /** Base64 of the cluster CA certificate PEM. */
  readonly caCertificateBase64: string;
  /** Base64 of the client certificate PEM. */
  readonly clientCertificateBase64: string;
  /** Base64 of the client private key PEM. */
  readonly clientKeyBase64: string;
  /**
   * User entry name.
   * @default 'admin'
   */
  readonly userName?: string;
}

/**
 * A kubeconfig with one cluster, one client-certificate user (`<userName>@<clusterName>`) and one
 * context named after the cluster, which is the current context. Key material stays as given
 * (token strings are rendered into the YAML unchanged), so the result is as sensitive as the key.
 */
export function renderKubeconfig(props: KubeconfigProps): string {
  const user = `${props.userName ?? 'admin'}@${props.clusterName}`;
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: props.clusterName, cluster: { server: props.server, 'certificate-authority-data': props.caCertificateBase64 } }],
      users: [{ name: user, user: { 'client-certificate-data': props.clientCertificateBase64, 'client-key-data': props.clientKeyBase64 } }],
      contexts: [{ name: props.clusterName, context: { cluster: props.clusterName, user } }],
      'current-context': props.clusterName,
    },
    { lineWidth: 0 },
  );
}
