/** The management VM's user-data inputs as an environment sets them. */
import { managementTools } from '../config/management-tools';
import { pinnedManifests } from '../config/provider-manifests';
import type { EnvironmentConfig } from '../config/resolve';
import type { ManagementUserDataProps } from './management-user-data-props';

/** What Terraform knows only at apply time (tokens at synth). */
export interface ManagementApplyValues {
  /** The floating IP the management API is reached on. */
  readonly apiServerAddress: string;
  /** The VM's fixed IP. */
  readonly fixedAddress: string;
  readonly caCertificatePemBase64: string;
  readonly caPrivateKeyPemBase64: string;
}

export function managementUserDataProps(env: EnvironmentConfig, values: ManagementApplyValues, apiServerPort: number): ManagementUserDataProps {
  const spec = env.spec;
  return {
    kindClusterName: spec.management.kindClusterName,
    apiServerAddress: values.apiServerAddress,
    apiServerPort,
    extraCertSans: [values.fixedAddress],
    caCertificatePemBase64: values.caCertificatePemBase64,
    caPrivateKeyPemBase64: values.caPrivateKeyPemBase64,
    mtu: spec.network.mtu,
    httpProxy: spec.proxy.httpProxy,
    noProxy: spec.proxy.noProxy,
    managementCidr: spec.network.managementCidr,
    registryMirrors: env.registryMirrors.map((m) => ({ registry: m.registry, endpoints: [...m.endpoints], caCertificatePem: m.caCertificatePem, skipVerify: m.skipVerify })),
    versions: { ...managementTools(spec.management.tools), clusterApi: spec.versions.clusterApi, capo: spec.versions.capo, caaph: spec.versions.caaph },
    providerManifests: pinnedManifests(spec),
    trustedCaCertificatesPem: env.managementTrustedCaPem,
    sshUsername: spec.management.sshUsername,
    // The Nova key pair only reaches the image's default user; cloud-init gives the key to sshUsername.
    sshAuthorizedKeys: spec.management.sshPublicKey ? [spec.management.sshPublicKey.trim()] : undefined,
  };
}
