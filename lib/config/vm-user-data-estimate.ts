/**
 * An upper bound of the management VM's user data, from the environment alone, for `validate` (the
 * renderer lives above config; at synth it measures the real document, see
 * management-vm/user-data-size.ts). The document of an environment that sets nothing optional is
 * measured once (VM_BASE_BYTES); each setting then adds what the renderer writes for it: the proxy
 * four times into the bootstrap's environment file, twice into docker's drop-in and twice for apt;
 * certificates once per file with six spaces before each line; the scripts base64-encoded (4/3).
 * test/config/user-data-size.test.ts holds the bound against the real measure.
 */
import { certificateBlocks } from './pem';
import { DEFAULT_MANAGEMENT_TOOLS } from './downloads';
import { managementTools } from './management-tools';
import { pinnedManifests } from './provider-manifests';
import type { EnvironmentConfig } from './resolve';
import type { UserDataEstimate, UserDataPart } from './user-data-limits';

/**
 * The document for an environment without proxy, mirrors, trusted CAs, SSH key or pinned manifests,
 * with Terraform's values at their bounds (measured 31,229 bytes; rounded up, with room for the
 * versions of a newer release, which the scripts carry).
 */
export const VM_BASE_BYTES = 31_900;

/** Characters of `text` once base64-encoded (the scripts are). */
const b64 = (bytes: number) => Math.ceil((bytes * 4) / 3);
const len = (s: string | undefined) => (s === undefined ? 0 : Buffer.byteLength(s, 'utf8'));
/** A value in a shell word or YAML scalar: quotes when it holds anything but plain URL characters. */
const quoted = (s: string) => len(s) + (/^[A-Za-z0-9_@%+=:,./-]*$/.test(s) ? 0 : 2);
/** A certificate block in a YAML literal block: its text and six spaces before each line. */
const pemBytes = (pem: string) => certificateBlocks(pem).blocks.reduce((n, b) => n + len(b) + 6 * (b.split('\n').length - 1) + 10, 0);
/** TOML writes a control character as \uXXXX. */
const controls = (s: string) => 6 * (s.match(/[\u0000-\u001f\u007f]/g)?.length ?? 0);

/** Upper bound of the management VM's user data. */
export function vmUserDataEstimate(env: EnvironmentConfig): UserDataEstimate {
  const spec = env.spec;
  const m = spec.management;
  const parts: UserDataPart[] = [
    { path: ['management'], fixed: true, bytes: VM_BASE_BYTES + 3 * Math.max(0, len(m.kindClusterName) - 'capi-mgmt'.length) },
    ...proxyPart(env),
    ...env.registryMirrors.flatMap((mirror, i) => mirrorParts(mirror, i)),
    ...(env.managementTrustedCaPem ? [{ path: ['management', 'trustedCaCertificateFile'], bytes: 40 + pemBytes(env.managementTrustedCaPem) }] : []),
    ...(m.sshPublicKey ? [{ path: ['management', 'sshPublicKey'], bytes: 200 + len(m.sshUsername) + quoted(m.sshPublicKey.trim()) }] : []),
    ...toolsPart(env),
    ...manifestsPart(env),
  ];
  return { bytes: parts.reduce((n, p) => n + p.bytes, 0), parts };
}

function proxyPart(env: EnvironmentConfig): UserDataPart[] {
  const proxy = env.spec.proxy.httpProxy;
  if (!proxy) return [];
  const noProxy = env.spec.proxy.noProxy.join(',');
  // proxy.env: 4 proxy and 2 NO_PROXY values; docker's drop-in: 2 and 1 (systemd's %%); apt: 2
  const p = 6 * quoted(proxy) + 2 * (len(proxy) + (proxy.match(/%/g)?.length ?? 0));
  return [{ path: ['proxy'], bytes: 850 + p + 3 * (quoted(noProxy) + 1) }];
}

/**
 * A mirror's hosts.toml (and the first mirror's mounts in kind's configuration); for docker.io also
 * docker's mirror list and insecure hosts; its CA once, and for docker.io once more per endpoint.
 */
function mirrorParts(mirror: EnvironmentConfig['registryMirrors'][number], i: number): UserDataPart[] {
  const hub = mirror.registry === 'docker.io';
  const r = len(mirror.registry);
  const ca = mirror.caCertificatePem !== undefined;
  const perEndpoint = (e: string) => 70 + len(e) + controls(e) + (ca ? 60 + r : 0) + (mirror.skipVerify ? 30 : 0) + (hub ? 40 + len(e) + (mirror.skipVerify ? 20 + len(e) : 0) : 0);
  const parts: UserDataPart[] = [{ path: ['registryMirrors', i, 'endpoints'], bytes: (i === 0 ? 320 : 0) + 160 + 2 * r + mirror.endpoints.reduce((n, e) => n + perEndpoint(e), 0) }];
  if (mirror.caCertificatePem) {
    const copies = 1 + (hub ? mirror.endpoints.length : 0);
    const longestHost = Math.max(...mirror.endpoints.map(len));
    parts.push({ path: ['registryMirrors', i, 'caCertificateFile'], bytes: copies * (130 + r + longestHost + pemBytes(mirror.caCertificatePem)) });
  }
  return parts;
}

/** Tool URLs and versions that differ from the defaults (download-tools.sh; the kind node image in kind's configuration and three scripts). */
function toolsPart(env: EnvironmentConfig): UserDataPart[] {
  const tools = managementTools(env.spec.management.tools);
  const names = ['kind', 'kubectl', 'clusterctl'] as const;
  const grown = names.reduce((n, t) => n + Math.max(0, 2 * (len(tools[t].url) - len(DEFAULT_MANAGEMENT_TOOLS[t].url)) + 4 * (len(tools[t].version) - len(DEFAULT_MANAGEMENT_TOOLS[t].version))), 0);
  const image = Math.max(0, len(tools.kindNodeImage) - len(DEFAULT_MANAGEMENT_TOOLS.kindNodeImage));
  return grown + image > 0 ? [{ path: ['management', 'tools'], bytes: b64(grown) + 6 * image + 20 }] : [];
}

/**
 * fetch-manifests.sh: a line per manifest (URL, SHA-256, its path twice), a provider entry per
 * component file; prepull-images.sh (fixed, 2.4 KB) and the line that starts it.
 */
function manifestsPart(env: EnvironmentConfig): UserDataPart[] {
  const manifests = pinnedManifests(env.spec);
  if (!manifests) return [];
  const lines = manifests.reduce((n, f) => n + len(f.url) + 3 * len(f.path) + 100, 0);
  return [{ path: ['management', 'providerManifests'], bytes: b64(4400 + lines) }];
}
