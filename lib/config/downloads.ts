/**
 * Pinned downloads for the management VM: the binaries its cloud-init fetches and verifies, and the
 * kind node image (pinned by digest). Everything here is linux/amd64.
 *
 * Every checksum below comes from a named source. GitHub is not reachable from the machines that
 * build this project, so the published values were read from public material that quotes them; each
 * comment says where the authoritative value lives and what it was cross-checked against. When
 * bumping a version, take the new value from the authoritative location and never compute it from
 * a binary of unknown origin.
 */

/** A binary fetched over HTTPS and verified against a SHA-256 before it is installed. */
export interface PinnedDownload {
  /** Release version, e.g. `v0.31.0`. */
  readonly version: string;
  /** HTTPS URL of the binary itself (not an archive). */
  readonly url: string;
  /** Lowercase hex SHA-256 of the file served at `url` (64 characters). */
  readonly sha256: string;
}

/**
 * kind v0.32.0, linux/amd64.
 *
 * Authoritative: https://github.com/kubernetes-sigs/kind/releases/download/v0.32.0/kind-linux-amd64.sha256sum
 * (also served at https://kind.sigs.k8s.io/dl/v0.32.0/kind-linux-amd64.sha256sum).
 * Read from several independent public repositories that pin kind v0.32.0 next to that file's URL
 * (install scripts, CI workflows, tool version lists that carry the arm64 and darwin values of the
 * same .sha256sum files too); all agree. Release tag on the Go module proxy: sigs.k8s.io/kind@v0.32.0
 * (2026-06-02).
 */
export const KIND_DOWNLOAD: PinnedDownload = {
  version: 'v0.32.0',
  url: 'https://github.com/kubernetes-sigs/kind/releases/download/v0.32.0/kind-linux-amd64',
  sha256: '50030de23cf40a18505f20426f6a8506bedf13c6e509244bd1fa9463721b0f54',
};

/**
 * The node image kind v0.32.0 was released with (Kubernetes v1.36.1), pinned by digest.
 *
 * Authoritative: the default node image of kind v0.32.0, `Image` in pkg/apis/config/defaults/image.go
 * of sigs.k8s.io/kind@v0.32.0 as the Go module proxy serves it, checked against the Go checksum
 * database (the release notes' "images pre-built for this release" list the same reference).
 * Kubernetes v1.36 is inside the management range of Cluster API v1.12 from v1.12.8 on and of v1.13
 * from v1.13.1 on (the Cluster API book's support matrix); kind needs cgroup v2, which Ubuntu 22.04
 * and 24.04 use by default.
 */
export const KIND_NODE_IMAGE =
  'kindest/node:v1.36.1@sha256:3489c7674813ba5d8b1a9977baea8a6e553784dab7b84759d1014dbd78f7ebd5';

/**
 * kubectl v1.36.1, linux/amd64, matching the kind node image's Kubernetes version.
 *
 * Authoritative: https://dl.k8s.io/release/v1.36.1/bin/linux/amd64/kubectl.sha256
 * Read from several independent public repositories that pin it next to that URL (Makefile tool
 * lists with the arm64 value beside it, Dockerfiles, CI workflows); all agree.
 */
export const KUBECTL_DOWNLOAD: PinnedDownload = {
  version: 'v1.36.1',
  url: 'https://dl.k8s.io/release/v1.36.1/bin/linux/amd64/kubectl',
  sha256: '629d3f410e09bf49b64ae7079f7f0bda1191efed311f7d37fdbab0ad5b0ec2b7',
};

/**
 * clusterctl v1.12.4, linux/amd64.
 *
 * Cluster API publishes no checksum file for clusterctl; the authoritative value is the asset
 * digest GitHub shows for https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.4/clusterctl-linux-amd64
 * on the release page https://github.com/kubernetes-sigs/cluster-api/releases/tag/v1.12.4.
 * Read from one public repository that pins it in a Go tool catalog (together with the arm64
 * value 1260f75a…); the kind and kubectl values in the same catalog match their published
 * checksums. No v1.12 patch newer than v1.12.4 had a checksum that could be established (v1.12.10,
 * the controller version, has none quoted anywhere reachable, nor has any v1.13.x or v1.14.x), so
 * clusterctl stays at v1.12.4, also under the default Cluster API v1.14.2: clusterctl judges a
 * provider release by the contract its metadata.yaml names, and v1.12, v1.13 and v1.14 all speak
 * v1beta2, so v1.12.4 installs and upgrades them (v1.12.4 built from its module installed Cluster
 * API v1.14.2, CAPO v0.14.7 and CAAPH v0.6.4 in the VM stand-in, scripts/local-vm/prove-user-data).
 * Environments pin another release with `management.tools.clusterctl`.
 */
export const CLUSTERCTL_DOWNLOAD: PinnedDownload = {
  version: 'v1.12.4',
  url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.4/clusterctl-linux-amd64',
  sha256: 'ec758f8355b8ee92a5a4463a43d374516d611dd41029fd5e5315eb6f167643e7',
};

/** The default tool set of the management VM. */
export const DEFAULT_MANAGEMENT_TOOLS = {
  kind: KIND_DOWNLOAD,
  kubectl: KUBECTL_DOWNLOAD,
  clusterctl: CLUSTERCTL_DOWNLOAD,
  kindNodeImage: KIND_NODE_IMAGE,
} as const;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const VERSION = /^v\d+\.\d+\.\d+$/;

/** Whether `value` is a lowercase hex SHA-256. */
export function isSha256Hex(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** The VM's binaries, by the name they are installed under. */
export type ManagementToolName = 'kind' | 'kubectl' | 'clusterctl';

/** Release URL of each tool's linux/amd64 binary at a version (also the file name a mirror uses). */
export function toolReleaseUrl(name: ManagementToolName, version: string): string {
  switch (name) {
    case 'kind':
      return `https://github.com/kubernetes-sigs/kind/releases/download/${version}/kind-linux-amd64`;
    case 'kubectl':
      return `https://dl.k8s.io/release/${version}/bin/linux/amd64/kubectl`;
    case 'clusterctl':
      return `https://github.com/kubernetes-sigs/cluster-api/releases/download/${version}/clusterctl-linux-amd64`;
  }
}

/** A kind node image pinned by digest: `name[:tag]@sha256:<64 hex>`. */
export const NODE_IMAGE_PATTERN = /^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?@sha256:[0-9a-f]{64}$/;

/**
 * A clusterctl release binary (linux/amd64) with an operator-supplied checksum, for operators who
 * pin a clusterctl patch whose checksum this project does not ship.
 * @param version e.g. `v1.12.10`
 * @param sha256 the SHA-256 GitHub shows for `clusterctl-linux-amd64` on that release page
 */
export function clusterctlDownload(version: string, sha256: string): PinnedDownload {
  return releaseDownload('clusterctl', version, sha256);
}

/** A kubectl release binary (linux/amd64); the checksum is at `<url>.sha256` on dl.k8s.io. */
export function kubectlDownload(version: string, sha256: string): PinnedDownload {
  return releaseDownload('kubectl', version, sha256);
}

/** A kind release binary (linux/amd64); the checksum is at `<url>.sha256sum`. */
export function kindDownload(version: string, sha256: string): PinnedDownload {
  return releaseDownload('kind', version, sha256);
}

function releaseDownload(name: ManagementToolName, version: string, sha256: string): PinnedDownload {
  if (!VERSION.test(version)) {
    throw new Error(`${name}: expected a release version like v1.2.3, found "${version}"`);
  }
  const normalized = sha256.trim().toLowerCase();
  if (!isSha256Hex(normalized)) {
    throw new Error(`${name} ${version}: expected a SHA-256 of 64 hex characters, found "${sha256}"`);
  }
  return { version, url: toolReleaseUrl(name, version), sha256: normalized };
}

/** The ORC release CAPO needs, from the versions table (lib/config/component-versions.json). */
export { DEFAULT_ORC_VERSION } from './versions';

/** Alias of {@link DEFAULT_MANAGEMENT_TOOLS}, the name the management stack uses. */
export const MANAGEMENT_DOWNLOADS = DEFAULT_MANAGEMENT_TOOLS;
