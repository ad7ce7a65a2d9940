/**
 * The manifests the management VM applies besides its binaries: the Cluster API provider
 * components and metadata that `clusterctl init` installs, ORC's install manifest and cert-manager.
 * They are GitHub release assets whose SHA-256 this project cannot establish (GitHub is not
 * reachable where it is built), so by default clusterctl fetches them itself, unverified. An
 * environment can pin them (`management.providerManifests`): the VM then downloads each file from
 * the release (or from a mirror with the same layout), checks its SHA-256 and hands clusterctl a
 * local repository, so nothing unverified is applied and the install works without GitHub. The
 * controller upgrade (a change of `versions`) installs from the same pins, so the pins name the
 * versions they are of.
 */
import type { PathIssue } from './cross-checks';
import type { EnvironmentSpec } from './environment-schema';
import { DEFAULT_ORC_VERSION } from './versions';

/**
 * cert-manager version that clusterctl v1.12.4 installs by default (`CertManagerDefaultVersion`
 * in cmd/clusterctl/client/config/cert_manager_client.go of sigs.k8s.io/cluster-api@v1.12.4, read
 * from the Go module proxy, checked against the Go checksum database).
 */
export const CLUSTERCTL_CERT_MANAGER_VERSION = 'v1.19.4';

/** Which versioned component a manifest belongs to. */
export type ManifestComponent = 'clusterApi' | 'capo' | 'caaph' | 'orc' | 'certManager';

/** Keys under `management.providerManifests.sha256`, one per file. */
export const MANIFEST_KEYS = [
  'orcInstall',
  'certManager',
  'coreComponents',
  'coreMetadata',
  'bootstrapComponents',
  'bootstrapMetadata',
  'controlPlaneComponents',
  'controlPlaneMetadata',
  'infrastructureComponents',
  'infrastructureMetadata',
  'addonComponents',
  'addonMetadata',
] as const;
export type ManifestKey = (typeof MANIFEST_KEYS)[number];

/** One pinned manifest, by the key the environment file uses for its checksum. */
export interface ProviderManifestFile {
  /** Key under `management.providerManifests.sha256`. */
  readonly key: ManifestKey;
  readonly component: ManifestComponent;
  /** Folder of the clusterctl local repository: the provider's manifest label (`orc` for ORC). */
  readonly label: string;
  /** File name of the release asset. */
  readonly file: string;
  /** GitHub repository whose release carries the asset. */
  readonly repository: string;
}

const CAPI = 'kubernetes-sigs/cluster-api';
const CAPO = 'kubernetes-sigs/cluster-api-provider-openstack';
const CAAPH = 'kubernetes-sigs/cluster-api-addon-provider-helm';

/** Every file the VM needs, in install order. Labels are clusterctl's `<type>-<name>` folders. */
export const PROVIDER_MANIFEST_FILES: readonly ProviderManifestFile[] = [
  { key: 'orcInstall', component: 'orc', label: 'orc', file: 'install.yaml', repository: 'k-orc/openstack-resource-controller' },
  { key: 'certManager', component: 'certManager', label: 'cert-manager', file: 'cert-manager.yaml', repository: 'cert-manager/cert-manager' },
  { key: 'coreComponents', component: 'clusterApi', label: 'cluster-api', file: 'core-components.yaml', repository: CAPI },
  { key: 'coreMetadata', component: 'clusterApi', label: 'cluster-api', file: 'metadata.yaml', repository: CAPI },
  { key: 'bootstrapComponents', component: 'clusterApi', label: 'bootstrap-kubeadm', file: 'bootstrap-components.yaml', repository: CAPI },
  { key: 'bootstrapMetadata', component: 'clusterApi', label: 'bootstrap-kubeadm', file: 'metadata.yaml', repository: CAPI },
  { key: 'controlPlaneComponents', component: 'clusterApi', label: 'control-plane-kubeadm', file: 'control-plane-components.yaml', repository: CAPI },
  { key: 'controlPlaneMetadata', component: 'clusterApi', label: 'control-plane-kubeadm', file: 'metadata.yaml', repository: CAPI },
  { key: 'infrastructureComponents', component: 'capo', label: 'infrastructure-openstack', file: 'infrastructure-components.yaml', repository: CAPO },
  { key: 'infrastructureMetadata', component: 'capo', label: 'infrastructure-openstack', file: 'metadata.yaml', repository: CAPO },
  { key: 'addonComponents', component: 'caaph', label: 'addon-helm', file: 'addon-components.yaml', repository: CAAPH },
  { key: 'addonMetadata', component: 'caaph', label: 'addon-helm', file: 'metadata.yaml', repository: CAAPH },
];

/** How clusterctl's configuration names each provider whose components sit in the local repository, by repository label. */
export const CLUSTERCTL_PROVIDERS: Readonly<Record<string, { readonly name: string; readonly type: string }>> = {
  'cluster-api': { name: 'cluster-api', type: 'CoreProvider' },
  'bootstrap-kubeadm': { name: 'kubeadm', type: 'BootstrapProvider' },
  'control-plane-kubeadm': { name: 'kubeadm', type: 'ControlPlaneProvider' },
  'infrastructure-openstack': { name: 'openstack', type: 'InfrastructureProvider' },
  'addon-helm': { name: 'helm', type: 'AddonProvider' },
};

/** The components a controller upgrade can apply: clusterctl's providers (with their metadata) and cert-manager, not ORC (which clusterctl does not manage). */
export const UPGRADE_MANIFEST_KEYS: readonly ManifestKey[] = PROVIDER_MANIFEST_FILES.filter((f) => f.component !== 'orc').map((f) => f.key);

/** Where a manifest comes from and where it goes in the local repository. */
export interface ManifestSource {
  readonly key: string;
  readonly url: string;
  /** `<label>/<version>/<file>`: clusterctl's local repository layout. */
  readonly path: string;
}

/** A manifest to fetch and verify. */
export interface ManifestDownload extends ManifestSource {
  readonly sha256: string;
}

export type ManifestVersions = Readonly<Record<ManifestComponent, string>>;

/**
 * URL and repository path of every manifest.
 * @param baseUrl mirror laid out as `<baseUrl>/<label>/<version>/<file>`; without it, the GitHub release assets
 */
export function manifestSources(versions: ManifestVersions, baseUrl?: string): ManifestSource[] {
  return PROVIDER_MANIFEST_FILES.map((f) => {
    const version = versions[f.component];
    const path = `${f.label}/${version}/${f.file}`;
    const url = baseUrl ? `${baseUrl.replace(/\/+$/, '')}/${path}` : `https://github.com/${f.repository}/releases/download/${version}/${f.file}`;
    return { key: f.key, url, path };
  });
}

/** {@link manifestSources} with the checksum of each; every file needs one. */
export function manifestDownloads(versions: ManifestVersions, sha256: Readonly<Record<string, string>>, baseUrl?: string): ManifestDownload[] {
  return manifestSources(versions, baseUrl).map((s) => {
    const checksum = sha256[s.key];
    if (checksum === undefined) throw new Error(`management.providerManifests.sha256.${s.key}: missing`);
    return { ...s, sha256: checksum };
  });
}

/** The versions of the manifests an environment installs. */
export function manifestVersions(spec: EnvironmentSpec): ManifestVersions {
  const certManager = spec.management.providerManifests?.certManagerVersion ?? CLUSTERCTL_CERT_MANAGER_VERSION;
  return { clusterApi: spec.versions.clusterApi, capo: spec.versions.capo, caaph: spec.versions.caaph, orc: DEFAULT_ORC_VERSION, certManager };
}

/** The verified manifests an environment pins, or undefined when it leaves them to clusterctl. */
export function pinnedManifests(spec: EnvironmentSpec): ManifestDownload[] | undefined {
  const pinned = spec.management.providerManifests;
  return pinned ? manifestDownloads(manifestVersions(spec), pinned.sha256, pinned.baseUrl) : undefined;
}

/**
 * What `validate` says about an environment that leaves the manifests unpinned: every install and
 * every controller upgrade applies whatever the release URLs serve.
 */
export function unpinnedManifestsWarning(spec: EnvironmentSpec): string | undefined {
  if (spec.management.providerManifests) return undefined;
  return 'not set: the management VM\'s first install and every controller upgrade (a change of versions) apply the Cluster API provider components and cert-manager as downloaded from their GitHub releases, without a checksum (the controllers hold every cluster\'s credentials); pin them: `capi-openstack manifests <env> --fetch` prints the block (docs/security.md, Supply chain)';
}

/** The versions fields the pins must match: the checksums are of one release each. */
const PINNED_VERSION_FIELDS = [
  ['clusterApi', 'Cluster API (core, kubeadm)'],
  ['capo', 'CAPO'],
  ['caaph', 'CAAPH'],
] as const;

/**
 * A `versions` change must come with the checksums of the new release: the controller upgrade
 * installs pinned components only, so versions the pins are not of are refused at validate.
 */
export function pinnedVersionIssues(spec: EnvironmentSpec): PathIssue[] {
  const pinned = spec.management.providerManifests;
  if (!pinned) return [];
  return PINNED_VERSION_FIELDS.flatMap(([field, what]) => {
    const want = spec.versions[field];
    const have = pinned.versions[field];
    if (want === have) return [];
    return [
      {
        path: ['management', 'providerManifests', 'versions', field],
        message: `expected ${want}, the version versions.${field} installs (the controller upgrade applies pinned components only, so the checksums here must be of that release), found "${have}": pin the ${what} ${want} manifests (\`capi-openstack manifests <env> --fetch\` prints the block), or keep versions.${field} at ${have}`,
      },
    ];
  });
}
