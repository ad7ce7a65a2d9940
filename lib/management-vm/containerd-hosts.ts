import { tomlBasicString } from '../config/toml-text';
import type { RegistryMirror } from './types';

/** Upstream server of a registry as containerd names it (docker.io is served by registry-1.docker.io). */
export function upstreamServer(registry: string): string {
  return registry === 'docker.io' ? 'https://registry-1.docker.io' : `https://${registry}`;
}

/**
 * `hosts.toml` for one mirrored registry, for containerd's registry host directory
 * (https://github.com/containerd/containerd/blob/main/docs/hosts.md).
 * @param caPathInNode where the mirror CA is inside the kind node, when the mirror has one
 */
export function renderContainerdHostsToml(mirror: RegistryMirror, caPathInNode?: string): string {
  const lines = [`server = ${tomlBasicString(upstreamServer(mirror.registry))}`, ''];
  for (const endpoint of mirror.endpoints) {
    lines.push(`[host.${tomlBasicString(endpoint)}]`);
    lines.push('  capabilities = ["pull", "resolve"]');
    if (caPathInNode) lines.push(`  ca = ${tomlBasicString(caPathInNode)}`);
    if (mirror.skipVerify) lines.push('  skip_verify = true');
    lines.push('');
  }
  return lines.join('\n');
}
