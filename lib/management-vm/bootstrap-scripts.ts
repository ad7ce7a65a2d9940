import { renderClusterctlInitSh, CLUSTERCTL_INIT_SH } from './scripts/clusterctl-init-sh';
import { renderDockerSh, DOCKER_SH } from './scripts/docker-sh';
import { renderDownloadToolsSh, DOWNLOAD_TOOLS_SH } from './scripts/download-tools-sh';
import { renderEnableMetadataBlockSh, ENABLE_METADATA_BLOCK_SH } from './scripts/enable-metadata-block-sh';
import { FETCH_MANIFESTS_SH, renderFetchManifestsSh } from './scripts/fetch-manifests-sh';
import { renderKindClusterSh, KIND_CLUSTER_SH } from './scripts/kind-cluster-sh';
import { renderLibSh, LIB_SH } from './scripts/lib-sh';
import { BootstrapStep, MAIN_SH, renderMainSh } from './scripts/main-sh';
import { renderMetadataBlockSh, METADATA_BLOCK_SH } from './scripts/metadata-block-sh';
import type { ManifestDownload } from '../config/provider-manifests';
import { BOOTSTRAP_PATHS } from './paths';
import type { ManagementVersions } from './types';

export interface BootstrapScriptsProps {
  readonly kindClusterName: string;
  readonly apiServerPort: number;
  readonly mtu: number;
  readonly versions: ManagementVersions & { readonly orc: string };
  /**
   * Pinned provider manifests, fetched and verified into a local clusterctl repository.
   * @default - clusterctl and kubectl fetch them from GitHub, unverified
   */
  readonly manifests?: readonly ManifestDownload[];
}

/** A script file of the bootstrap. */
export interface ScriptFile {
  readonly name: string;
  readonly content: string;
  /** `0700` for executables, `0600` for the sourced library. */
  readonly mode: string;
}

/** The steps, in order, with their time limits. */
export const BOOTSTRAP_STEPS: readonly BootstrapStep[] = [
  { name: 'metadata-block-early', command: [ENABLE_METADATA_BLOCK_SH, 'early'], timeoutSeconds: 120 },
  { name: 'docker', command: [DOCKER_SH], timeoutSeconds: 1200 },
  { name: 'metadata-block', command: [ENABLE_METADATA_BLOCK_SH, 'docker-user'], timeoutSeconds: 120 },
  { name: 'download-tools', command: [DOWNLOAD_TOOLS_SH], timeoutSeconds: 1200 },
  { name: 'kind-cluster', command: [KIND_CLUSTER_SH], timeoutSeconds: 1500 },
  { name: 'clusterctl-init', command: [CLUSTERCTL_INIT_SH], timeoutSeconds: 3600 },
];

/** The steps with pinned manifests: they are fetched and verified before the kind cluster exists. */
export function bootstrapSteps(pinnedManifests: boolean): readonly BootstrapStep[] {
  if (!pinnedManifests) return BOOTSTRAP_STEPS;
  const at = BOOTSTRAP_STEPS.findIndex((s) => s.name === 'download-tools') + 1;
  return [...BOOTSTRAP_STEPS.slice(0, at), { name: 'fetch-manifests', command: [FETCH_MANIFESTS_SH], timeoutSeconds: 900 }, ...BOOTSTRAP_STEPS.slice(at)];
}

/** Every script the bootstrap writes, the entry point included. */
export function renderBootstrapScripts(props: BootstrapScriptsProps): ScriptFile[] {
  const v = props.versions;
  const pinned = props.manifests !== undefined;
  const exe = (name: string, content: string): ScriptFile => ({ name, content, mode: '0700' });
  return [
    { name: LIB_SH, content: renderLibSh(), mode: '0600' },
    exe(MAIN_SH, renderMainSh(bootstrapSteps(pinned))),
    exe(ENABLE_METADATA_BLOCK_SH, renderEnableMetadataBlockSh()),
    exe(METADATA_BLOCK_SH, renderMetadataBlockSh()),
    exe(DOCKER_SH, renderDockerSh({ mtu: props.mtu })),
    exe(DOWNLOAD_TOOLS_SH, renderDownloadToolsSh({ kind: v.kind, kubectl: v.kubectl, clusterctl: v.clusterctl })),
    ...(props.manifests ? [exe(FETCH_MANIFESTS_SH, renderFetchManifestsSh(props.manifests))] : []),
    exe(KIND_CLUSTER_SH, renderKindClusterSh({ clusterName: props.kindClusterName, nodeImage: v.kindNodeImage, apiServerPort: props.apiServerPort })),
    exe(
      CLUSTERCTL_INIT_SH,
      renderClusterctlInitSh({
        clusterApi: v.clusterApi,
        capo: v.capo,
        caaph: v.caaph,
        orc: v.orc,
        kindNodeImage: v.kindNodeImage,
        ...(pinned ? { manifestRepository: BOOTSTRAP_PATHS.manifestRepository } : {}),
      }),
    ),
  ];
}
