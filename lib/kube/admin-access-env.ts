import { Fn } from 'cdktf';

/** What a local-exec needs to reach the management API as its admin (the readiness gate, the controller upgrade). */
export interface AdminAccess {
  readonly server: string;
  readonly caCertificatePem: string;
  readonly clientCertificatePem: string;
  readonly clientKeyPem: string;
}

/** The KUBE_* environment of a bundled script that talks to the management API. */
export function adminAccessEnvironment(a: AdminAccess): Record<string, string> {
  return {
    KUBE_SERVER: a.server,
    KUBE_CA_PEM: a.caCertificatePem,
    KUBE_CLIENT_CERT_PEM: a.clientCertificatePem,
    // Terraform never prints provisioner environments; keeping the key marked sensitive would
    // only suppress the script's progress lines.
    KUBE_CLIENT_KEY_PEM: Fn.nonsensitive(a.clientKeyPem),
  };
}
