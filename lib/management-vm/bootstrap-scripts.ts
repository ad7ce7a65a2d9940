import { renderClusterctlInitSh, CLUSTERCTL_INIT_SH } from './scripts/clusterctl-init-sh';
import { renderDockerSh, DOCKER_SH } from './scripts/docker-sh';
import { renderDownloadToolsSh, DOWNLOAD_TOOLS_SH } from './scripts/download-tools-sh';
import { renderEnableMetadataBlockSh, ENABLE_METADATA_BLOCK_SH } from './scripts/enable-metadata-block-sh';
import { FETCH_MANIFESTS_SH, renderFetchManifestsSh } from './scripts/fetch-manifests-sh';
import { renderKindClusterSh, KIND_CLUSTER_SH } from './scripts/kind-cluster-sh';
import { renderLibSh, LIB_SH } from './scripts/lib-sh';
import { BootstrapStage, BootstrapStep, MAIN_SH, renderMainSh } from './scripts/main-sh';
import { renderMetadataBlockSh, METADATA_BLOCK_SH } from './scripts/metadata-block-sh';
import { PREPULL_IMAGES_SH, renderPrepullImagesSh } from './scripts/prepull-images-sh';
import { PULL_NODE_IMAGE_SH, renderPullNodeImageSh } from './scripts/pull-node-image-sh';
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

const step = (name: string, command: readonly string[], timeoutSeconds: number): BootstrapStep => ({ name, command, timeoutSeconds });

/**
 * The stages, in order, with the time limit of each step. The metadata block comes before docker
 * exists; docker, its block and the kind node image (the largest download) run beside the
 * verified downloads of the tools and manifests, which need neither.
 */
export function bootstrapStages(pinnedManifests: boolean): readonly BootstrapStage[] {
  return [
    step('metadata-block-early', [ENABLE_METADATA_BLOCK_SH, 'early'], 120),
    {
      sideBySide: [
        [step('docker', [DOCKER_SH], 1200), step('metadata-block', [ENABLE_METADATA_BLOCK_SH, 'docker-user'], 120), step('pull-node-image', [PULL_NODE_IMAGE_SH], 1200)],
        [step('download-tools', [DOWNLOAD_TOOLS_SH], 1200), ...(pinnedManifests ? [step('fetch-manifests', [FETCH_MANIFESTS_SH], 900)] : [])],
      ],
    },
    step('kind-cluster', [KIND_CLUSTER_SH], 1500),
    step('clusterctl-init', [CLUSTERCTL_INIT_SH], 3600),
  ];
}

/** The stages without pinned manifests (the default). */
export const BOOTSTRAP_STAGES: readonly BootstrapStage[] = bootstrapStages(false);

/** Every script the bootstrap writes, the entry point included. */
export function renderBootstrapScripts(props: BootstrapScriptsProps): ScriptFile[] {
  const v = props.versions;
  const pinned = props.manifests !== undefined;
  const exe = (name: string, content: string): ScriptFile => ({ name, content, mode: '0700' });
  return [
    { name: LIB_SH, content: renderLibSh(), mode: '0600' },
    exe(MAIN_SH, renderMainSh(bootstrapStages(pinned))),
    exe(ENABLE_METADATA_BLOCK_SH, renderEnableMetadataBlockSh()),
    exe(METADATA_BLOCK_SH, renderMetadataBlockSh()),
    exe(DOCKER_SH, renderDockerSh({ mtu: props.mtu })),
    exe(PULL_NODE_IMAGE_SH, renderPullNodeImageSh(v.kindNodeImage)),
    exe(DOWNLOAD_TOOLS_SH, renderDownloadToolsSh({ kind: v.kind, kubectl: v.kubectl, clusterctl: v.clusterctl })),
    ...(props.manifests
      ? [exe(FETCH_MANIFESTS_SH, renderFetchManifestsSh(props.manifests)), exe(PREPULL_IMAGES_SH, renderPrepullImagesSh(BOOTSTRAP_PATHS.manifestRepository))]
      : []),
    exe(
      KIND_CLUSTER_SH,
      renderKindClusterSh({ clusterName: props.kindClusterName, nodeImage: v.kindNodeImage, apiServerPort: props.apiServerPort, prepullImages: pinned }),
    ),
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
