/**
 * The binaries and the kind node image the management VM installs, as an environment pins them:
 * the tested defaults (downloads.ts), optionally another release of a tool with its checksum, and
 * optionally a mirror that serves the files where GitHub and dl.k8s.io are out of reach.
 */
import { DEFAULT_MANAGEMENT_TOOLS, ManagementToolName, PinnedDownload, toolReleaseUrl } from './downloads';

export type { ManagementToolName } from './downloads';

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

/**
 * Where a mirror serves a tool: `<baseUrl>/<name>/<version>/<file>`, the file named as in the
 * release (kind-linux-amd64, kubectl, clusterctl-linux-amd64).
 */
export function mirroredToolUrl(baseUrl: string, name: ManagementToolName, version: string): string {
  const file = toolReleaseUrl(name, version).split('/').pop()!;
  return `${baseUrl.replace(/\/+$/, '')}/${name}/${version}/${file}`;
}

/** The tools an environment installs on its management VM. */
export function managementTools(settings: ManagementToolsSettings | undefined): ManagementTools {
  const s = settings ?? {};
  const tool = (name: ManagementToolName): PinnedDownload => {
    const pin = s[name] ?? DEFAULT_MANAGEMENT_TOOLS[name];
    const url = s.baseUrl ? mirroredToolUrl(s.baseUrl, name, pin.version) : toolReleaseUrl(name, pin.version);
    return { version: pin.version, url, sha256: pin.sha256 };
  };
  return { kind: tool('kind'), kubectl: tool('kubectl'), clusterctl: tool('clusterctl'), kindNodeImage: s.kindNodeImage ?? DEFAULT_MANAGEMENT_TOOLS.kindNodeImage };
}
