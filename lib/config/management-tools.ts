/**
 * The binaries and the kind node image the management VM installs, as an environment pins them:
 * the tested defaults (downloads.ts), optionally another release of a tool with its checksum, and
 * optionally a mirror that serves the files where GitHub and dl.k8s.io are out of reach.
 */
import { DEFAULT_MANAGEMENT_TOOLS, PinnedDownload } from './downloads';

/** The VM's binaries, by the name they are installed under. */
export const MANAGEMENT_TOOL_NAMES = ['kind', 'kubectl', 'clusterctl'] as const;
export type ManagementToolName = (typeof MANAGEMENT_TOOL_NAMES)[number];

/** A tool release and the SHA-256 of its linux/amd64 binary. */
export interface ToolPin {
  readonly version: string;
  readonly sha256: string;
}

/** What `management.tools` may say. */
export interface ManagementToolsSettings {
  readonly baseUrl?: string;
  readonly kind?: ToolPin;
  readonly kubectl?: ToolPin;
  readonly clusterctl?: ToolPin;
  readonly kindNodeImage?: string;
}

/** The resolved set the VM installs. */
export type ManagementTools = Readonly<Record<ManagementToolName, PinnedDownload>> & { readonly kindNodeImage: string };

/** Release URL of each tool's linux/amd64 binary at a version. */
const RELEASE_URL: Readonly<Record<ManagementToolName, (version: string) => string>> = {
  kind: (v) => `https://github.com/kubernetes-sigs/kind/releases/download/${v}/kind-linux-amd64`,
  kubectl: (v) => `https://dl.k8s.io/release/${v}/bin/linux/amd64/kubectl`,
  clusterctl: (v) => `https://github.com/kubernetes-sigs/cluster-api/releases/download/${v}/clusterctl-linux-amd64`,
};

/**
 * Where a mirror serves a tool: `<baseUrl>/<name>/<version>/<file>`, the file named as in the
 * release (kind-linux-amd64, kubectl, clusterctl-linux-amd64).
 */
export function mirroredToolUrl(baseUrl: string, name: ManagementToolName, version: string): string {
  const file = RELEASE_URL[name](version).split('/').pop()!;
  return `${baseUrl.replace(/\/+$/, '')}/${name}/${version}/${file}`;
}

/** The tools an environment installs on its management VM. */
export function managementTools(settings: ManagementToolsSettings | undefined): ManagementTools {
  const s = settings ?? {};
  const tool = (name: ManagementToolName): PinnedDownload => {
    const pin = s[name] ?? DEFAULT_MANAGEMENT_TOOLS[name];
    const url = s.baseUrl ? mirroredToolUrl(s.baseUrl, name, pin.version) : RELEASE_URL[name](pin.version);
    return { version: pin.version, url, sha256: pin.sha256 };
  };
  return { kind: tool('kind'), kubectl: tool('kubectl'), clusterctl: tool('clusterctl'), kindNodeImage: s.kindNodeImage ?? DEFAULT_MANAGEMENT_TOOLS.kindNodeImage };
}
