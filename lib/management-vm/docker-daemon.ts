import type { RegistryMirror } from './types';

/**
 * The part of /etc/docker/daemon.json known at synth time: registry mirrors of docker.io (docker
 * only mirrors Docker Hub), insecure registries for mirrors with `skipVerify`, and log rotation.
 * The bootstrap adds `mtu` on the VM (given or detected from the default route).
 */
export function dockerDaemonBase(mirrors: readonly RegistryMirror[]): Record<string, unknown> {
  const hub = mirrors.filter((m) => m.registry === 'docker.io');
  const config: Record<string, unknown> = {
    'log-driver': 'json-file',
    'log-opts': { 'max-size': '20m', 'max-file': '3' },
  };
  const registryMirrors = hub.flatMap((m) => m.endpoints);
  if (registryMirrors.length > 0) config['registry-mirrors'] = registryMirrors;
  const insecure = hub.filter((m) => m.skipVerify).flatMap((m) => m.endpoints.map((e) => new URL(e).host));
  if (insecure.length > 0) config['insecure-registries'] = insecure;
  return config;
}

/** Host (`name[:port]`) of each docker.io mirror with a CA, for /etc/docker/certs.d/<host>/ca.crt. */
export function dockerMirrorCaHosts(mirrors: readonly RegistryMirror[]): { host: string; pem: string }[] {
  return mirrors
    .filter((m) => m.registry === 'docker.io' && m.caCertificatePem)
    .flatMap((m) => m.endpoints.map((e) => ({ host: new URL(e).host, pem: m.caCertificatePem as string })));
}
