import { BOOTSTRAP_PATHS, KIND_POD_SUBNET, KIND_SERVICE_SUBNET } from './paths';
import type { RegistryMirror } from './types';
import { literalBlock, toYamlText } from './yaml-text';

export interface KindConfigProps {
  /** Name of the kind cluster. */
  readonly clusterName: string;
  /** kind node image with digest. */
  readonly nodeImage: string;
  /** Port the API server listens on, on every address of the VM. */
  readonly apiServerPort: number;
  /** Extra subject alternative names of the API server certificate (floating IP, fixed IP…); tokens allowed. */
  readonly certSans: readonly string[];
  /**
   * Registries mirrored for containerd in the node.
   * @default []
   */
  readonly registryMirrors?: readonly RegistryMirror[];
}

/** Where the CA files land inside the control-plane node: kubeadm reuses a CA it finds there. */
export const NODE_PKI_DIR = '/etc/kubernetes/pki';
/** containerd's registry host directory inside the node. */
export const NODE_CONTAINERD_CERTS_DIR = '/etc/containerd/certs.d';

/**
 * The kind cluster configuration: API server on 0.0.0.0:<port> with the given SANs, the
 * Terraform-generated CA mounted where kubeadm looks for it (so the admin certificate Terraform
 * mints from that CA is valid), pinned node image, and containerd registry mirrors.
 */
export function renderKindConfig(props: KindConfigProps): string {
  const mirrors = props.registryMirrors ?? [];
  const extraMounts: Record<string, unknown>[] = [
    { hostPath: BOOTSTRAP_PATHS.caCertificate, containerPath: `${NODE_PKI_DIR}/ca.crt`, readOnly: true },
    { hostPath: BOOTSTRAP_PATHS.caPrivateKey, containerPath: `${NODE_PKI_DIR}/ca.key`, readOnly: true },
  ];
  if (mirrors.length > 0) {
    extraMounts.push({ hostPath: BOOTSTRAP_PATHS.containerdCertsDir, containerPath: NODE_CONTAINERD_CERTS_DIR, readOnly: true });
  }
  // kind merges patches with JSON merge semantics, so this list replaces kind's own SANs: keep
  // what kind puts there (localhost, the listen address) and 127.0.0.1 for the local kubeconfig.
  const certSANs = [...new Set(['localhost', '127.0.0.1', '0.0.0.0', ...props.certSans])];
  const config: Record<string, unknown> = {
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    name: props.clusterName,
    networking: {
      apiServerAddress: '0.0.0.0',
      apiServerPort: props.apiServerPort,
      podSubnet: KIND_POD_SUBNET,
      serviceSubnet: KIND_SERVICE_SUBNET,
    },
    kubeadmConfigPatches: [
      literalBlock(toYamlText({ kind: 'ClusterConfiguration', apiServer: { certSANs } })),
    ],
    nodes: [{ role: 'control-plane', image: props.nodeImage, extraMounts }],
  };
  if (mirrors.length > 0) {
    config.containerdConfigPatches = [
      literalBlock(`[plugins."io.containerd.grpc.v1.cri".registry]\n  config_path = "${NODE_CONTAINERD_CERTS_DIR}"\n`),
    ];
  }
  return toYamlText(config);
}
