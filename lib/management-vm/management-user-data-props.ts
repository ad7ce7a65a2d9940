import type { ManifestDownload } from '../config/provider-manifests';
import type { ManagementVersions, RegistryMirror } from './types';

/** Inputs of the management VM's cloud-init. Strings marked "token" may be unresolved cdktf tokens. */
export interface ManagementUserDataProps {
  /** Name of the kind cluster, e.g. `capi-mgmt` (lowercase letters, digits, `-`, `.`). */
  readonly kindClusterName: string;
  /** Address clients use for the management API (the floating IP); put in the API certificate. Token. */
  readonly apiServerAddress: string;
  /**
   * Port of the management API on the VM.
   * @default 6443
   */
  readonly apiServerPort?: number;
  /**
   * More subject alternative names of the API server certificate, e.g. the VM's fixed IP. Tokens allowed.
   * @default []
   */
  readonly extraCertSans?: readonly string[];
  /** Base64 of the management cluster CA certificate PEM (kubeadm reuses this CA). Token. */
  readonly caCertificatePemBase64: string;
  /** Base64 of the CA private key PEM; lands root-only (0600) on the VM. Token. */
  readonly caPrivateKeyPemBase64: string;
  /**
   * MTU of docker and the kind network.
   * @default 0 - detect it from the default route interface at boot
   */
  readonly mtu?: number;
  /**
   * HTTP(S) proxy for apt, docker, the kind node's containerd, kind and clusterctl.
   * @default - no proxy
   */
  readonly httpProxy?: string;
  /**
   * NO_PROXY entries added to the built-in ones (loopback, metadata address, management subnet,
   * kind pod and service ranges, `.svc`, `.cluster.local`). Used only with `httpProxy`.
   * @default []
   */
  readonly noProxy?: readonly string[];
  /** CIDR of the management subnet (kept out of the proxy). */
  readonly managementCidr: string;
  /**
   * Registry mirrors for the kind node's containerd (and docker, for docker.io).
   * @default []
   */
  readonly registryMirrors?: readonly RegistryMirror[];
  /** Pinned binaries, node image and controller versions. */
  readonly versions: ManagementVersions;
  /**
   * Provider manifests (Cluster API providers, ORC, cert-manager) pinned by SHA-256: the VM
   * verifies them into a local clusterctl repository and installs from there.
   * @default - fetched from GitHub by clusterctl and kubectl, unverified
   */
  readonly providerManifests?: readonly ManifestDownload[];
  /**
   * PEM CA certificates the VM adds to its system trust store at first boot, before it downloads
   * anything (the private CA of a mirror behind the tool or manifest URLs, or of a TLS-inspecting
   * proxy). Certificate blocks only.
   * @default - the image's trust store only
   */
  readonly trustedCaCertificatesPem?: string;
  /**
   * SSH public keys allowed to log in as `sshUsername`.
   * @default [] - only the key of the OpenStack keypair, if the server has one
   */
  readonly sshAuthorizedKeys?: readonly string[];
  /**
   * Login user that gets `sshAuthorizedKeys` (created with passwordless sudo unless it is the
   * image's default user `ubuntu`).
   * @default 'ubuntu'
   */
  readonly sshUsername?: string;
}
