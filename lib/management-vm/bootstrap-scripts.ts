import { renderClusterctlInitSh, CLUSTERCTL_INIT_SH } from './scripts/clusterctl-init-sh';
import { renderDockerSh, DOCKER_SH } from './scripts/docker-sh';
import { renderDownloadToolsSh, DOWNLOAD_TOOLS_SH } from './scripts/download-tools-sh';
import { renderEnableMetadataBlockSh, ENABLE_METADATA_BLOCK_SH } from './scripts/enable-metadata-block-sh';
import { renderKindClusterSh, KIND_CLUSTER_SH } from './scripts/kind-cluster-sh';
import { renderLibSh, LIB_SH } from './scripts/lib-sh';
import { BootstrapStep, MAIN_SH, renderMainSh } from './scripts/main-sh';
import { renderMetadataBlockSh, METADATA_BLOCK_SH } from './scripts/metadata-block-sh';
import type { ManagementVersions } from './types';

export interface BootstrapScriptsProps {
  readonly kindClusterName: string;
  readonly apiServerPort: number;
  readonly mtu: number;
  readonly versions: ManagementVersions & { readonly orc: string };
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

/** Every script the bootstrap writes, the entry point included. */
export function renderBootstrapScripts(props: BootstrapScriptsProps): ScriptFile[] {
  const v = props.versions;
  const exe = (name: string, content: string): ScriptFile => ({ name, content, mode: '0700' });
  return [
    { name: LIB_SH, content: renderLibSh(), mode: '0600' },
    exe(MAIN_SH, renderMainSh(BOOTSTRAP_STEPS)),
    exe(ENABLE_METADATA_BLOCK_SH, renderEnableMetadataBlockSh()),
    exe(METADATA_BLOCK_SH, renderMetadataBlockSh()),
    exe(DOCKER_SH, renderDockerSh({ mtu: props.mtu })),
    exe(DOWNLOAD_TOOLS_SH, renderDownloadToolsSh({ kind: v.kind, kubectl: v.kubectl, clusterctl: v.clusterctl })),
    exe(KIND_CLUSTER_SH, renderKindClusterSh({ clusterName: props.kindClusterName, nodeImage: v.kindNodeImage, apiServerPort: props.apiServerPort })),
    exe(
      CLUSTERCTL_INIT_SH,
      renderClusterctlInitSh({ clusterApi: v.clusterApi, capo: v.capo, caaph: v.caaph, orc: v.orc, kindNodeImage: v.kindNodeImage }),
    ),
  ];
}
