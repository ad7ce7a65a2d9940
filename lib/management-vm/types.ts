import type { PinnedDownload } from '../config/downloads';

/** A container registry mirrored for the kind node (containerd) and for docker itself. */
export interface RegistryMirror {
  /** Registry host that is mirrored, e.g. `docker.io` or `registry.k8s.io`. */
  readonly registry: string;
  /** Mirror URLs (`https://host[:port][/path]`), tried in order. */
  readonly endpoints: readonly string[];
  /**
   * PEM of the CA that signed the mirrors' certificates.
   * @default - the system trust store
   */
  readonly caCertificatePem?: string;
  /**
   * Skip TLS verification of the mirrors (not recommended).
   * @default false
   */
  readonly skipVerify?: boolean;
}

/** Pinned versions of what the management VM installs. */
export interface ManagementVersions {
  readonly kind: PinnedDownload;
  readonly kubectl: PinnedDownload;
  readonly clusterctl: PinnedDownload;
  /** kind node image with digest, e.g. `kindest/node:v1.36.1@sha256:…`. */
  readonly kindNodeImage: string;
  /** Cluster API core, kubeadm bootstrap and kubeadm control plane provider version, e.g. `v1.12.10`. */
  readonly clusterApi: string;
  /** Cluster API Provider OpenStack version, e.g. `v0.14.2`. */
  readonly capo: string;
  /** Cluster API Add-on Provider for Helm version, e.g. `v0.6.1`. */
  readonly caaph: string;
  /**
   * openstack-resource-controller release, installed before CAPO (which needs it).
   * @default DEFAULT_ORC_VERSION ('v2.4.0')
   */
  readonly orc?: string;
}
