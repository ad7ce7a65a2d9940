import { renderContainerdHostsToml } from './containerd-hosts';
import { dockerMirrorCaHosts } from './docker-daemon';
import { NODE_CONTAINERD_CERTS_DIR } from './kind-config';
import { BOOTSTRAP_PATHS } from './paths';
import type { RegistryMirror } from './types';
import { WriteFile, plainFile } from './write-file';

/**
 * Files for registry mirrors: a containerd host directory per registry (hosts.toml, plus ca.crt
 * when the mirror has a CA), mounted into the kind node, and docker's per-host CA for docker.io
 * mirrors (docker pulls the kind node image itself).
 */
export function registryMirrorFiles(mirrors: readonly RegistryMirror[]): WriteFile[] {
  const files: WriteFile[] = [];
  for (const m of mirrors) {
    const hostDir = `${BOOTSTRAP_PATHS.containerdCertsDir}/${m.registry}`;
    const caInNode = m.caCertificatePem ? `${NODE_CONTAINERD_CERTS_DIR}/${m.registry}/ca.crt` : undefined;
    files.push(plainFile(`${hostDir}/hosts.toml`, renderContainerdHostsToml(m, caInNode), '0644'));
    if (m.caCertificatePem) files.push(plainFile(`${hostDir}/ca.crt`, ensureNewline(m.caCertificatePem), '0644'));
  }
  for (const { host, pem } of dockerMirrorCaHosts(mirrors)) {
    files.push(plainFile(`/etc/docker/certs.d/${host}/ca.crt`, ensureNewline(pem), '0644'));
  }
  return files;
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
