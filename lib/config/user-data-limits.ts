/**
 * How much user data a server may get. Nova takes `user_data` base64-encoded and refuses more than
 * 65535 characters of it (nova/api/openstack/compute/schemas/user_data.py: `'format': 'base64',
 * 'maxLength': 65535`; the user guide: "must be base64 encoded and is restricted to 65535 bytes").
 * Both paths to Nova hand it the document as it is and let gophercloud encode it ("Create will
 * base64-encode it for you, if it isn't already"): the OpenStack provider for the management VM,
 * CAPO for every workload node (OpenStackServer → servers.CreateOpts.UserData). So the document
 * itself may hold at most 16383 × 3 = 49149 bytes, not 64 KiB.
 */

/** Nova's limit on the base64 text of `user_data`, in characters. */
export const NOVA_USER_DATA_BASE64_LIMIT = 65535;

/** Characters of base64 for `bytes` bytes (padded, one line). */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/** The largest document whose base64 fits Nova's limit: 49149 bytes. */
export const NOVA_USER_DATA_LIMIT_BYTES = Math.floor(NOVA_USER_DATA_BASE64_LIMIT / 4) * 3;

/**
 * What Cluster API's kubeadm bootstrap provider adds to a node's user data besides the files,
 * commands and kubeadm settings we give it (bootstrap/kubeadm/pkg/cloudinit, v1.14), by role.
 *
 * A control-plane node gets the cluster CA, etcd CA and front-proxy CA (certificate and key each)
 * and the service-account key pair (secret.Certificates.AsFiles). CAPI makes them RSA-2048 unless
 * `encryptionAlgorithm` says otherwise (we set none): measured with openssl, a CA certificate is
 * 1131-1147 bytes, a PKCS#1 key 1675-1679, the public key 451; with six spaces of indentation per
 * line and the four-line `write_files` entry each, 12.1 KiB in all. The kubeadm configuration CAPI
 * marshals around our settings (ClusterConfiguration with endpoint, networking, version, names;
 * InitConfiguration or JoinConfiguration with the bootstrap token and discovery) is about 1.5 KiB,
 * the placeholder file, the kubeadm command and the header 0.5 KiB. 16 KiB leaves 2 KiB of margin.
 */
export const CAPI_CONTROL_PLANE_ADDITIONS_BYTES = 16 * 1024;

/** A worker gets no certificates: the JoinConfiguration (token, CA hash, endpoint), the placeholder, the kubeadm command. */
export const CAPI_WORKER_ADDITIONS_BYTES = 4 * 1024;

/**
 * Upper bounds of the values Terraform puts into the management VM's user data at apply time
 * (unknown at synth): the base64 of the management CA's certificate and of its RSA-2048 private key
 * (lib/pki: 1.1-1.3 KiB of PEM each for the certificate, 1675-1679 bytes for the key, so at most
 * 1.8 KiB and 2.3 KiB of base64), and an IPv4 address for the floating and the fixed IP.
 */
export const MANAGEMENT_TOKEN_BOUNDS = {
  caCertificateBase64: 2400,
  caPrivateKeyBase64: 2400,
  address: 39,
} as const;

/** One part of an estimated document and the field that makes it (where `validate` points). */
export interface UserDataPart {
  readonly path: readonly PropertyKey[];
  readonly bytes: number;
  /** Whether the operator can make it smaller (the bootstrap itself and CAPI's additions cannot). */
  readonly fixed?: boolean;
}

export interface UserDataEstimate {
  readonly bytes: number;
  readonly parts: readonly UserDataPart[];
}

/** `bytes` for messages: `48,211 bytes`. */
export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes`;
}
