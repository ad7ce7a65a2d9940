import { CLUSTERCTL_PROVIDERS, type ManifestDownload } from '../../config/provider-manifests';
import { isSha256Hex } from '../../config/downloads';
import { BOOTSTRAP_PATHS } from '../paths';
import { shellQuote } from '../shell-quote';
import { assertLiteral } from '../tokens';

export const FETCH_MANIFESTS_SH = 'fetch-manifests.sh';

/** The clusterctl configuration the script writes into the repository (read by clusterctl-init.sh). */
export const CLUSTERCTL_CONFIG_FILE = 'clusterctl.yaml';

const PATH = /^[a-z][a-z0-9-]*\/v\d+\.\d+\.\d+\/[a-z][a-z0-9.-]*\.yaml$/;

/**
 * Downloads every pinned manifest into a local clusterctl repository (`<label>/<version>/<file>`),
 * verifying each SHA-256, and writes the clusterctl configuration that points the providers and
 * cert-manager at it. Nothing is applied here; a mismatch stops the bootstrap before anything is.
 */
export function renderFetchManifestsSh(manifests: readonly ManifestDownload[]): string {
  manifests.forEach(checkManifest);
  const fetches = manifests.map((m) => `fetch_verified ${shellQuote(m.path)} ${shellQuote(m.url)} ${m.sha256} "$REPO_DIR/${m.path}" 0644`);
  const dirs = [...new Set(manifests.map((m) => m.path.slice(0, m.path.lastIndexOf('/'))))];
  const providers = manifests.flatMap((m) => {
    const p = CLUSTERCTL_PROVIDERS[m.path.split('/')[0]];
    return p && !m.path.endsWith('/metadata.yaml') ? [`  - name: ${p.name}\n    type: ${p.type}\n    url: file://$REPO_DIR/${m.path}`] : [];
  });
  const certManager = manifests.find((m) => m.path.startsWith('cert-manager/'));
  if (!certManager || providers.length !== Object.keys(CLUSTERCTL_PROVIDERS).length) {
    throw new Error('provider manifests: expected cert-manager and the components of every clusterctl provider');
  }
  return `#!/usr/bin/env bash
# Fetches the pinned provider manifests into a local clusterctl repository, each checked against
# its SHA-256, and writes the clusterctl configuration that installs from it. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# CAPI_BOOTSTRAP_REPOSITORY_DIR exists for tests; on the VM the default applies.
readonly REPO_DIR=\${CAPI_BOOTSTRAP_REPOSITORY_DIR:-${BOOTSTRAP_PATHS.manifestRepository}}

install -d -m 0755 ${dirs.map((d) => `"$REPO_DIR/${d}"`).join(' ')}
${fetches.join('\n')}

config=$(mktemp "$REPO_DIR/.${CLUSTERCTL_CONFIG_FILE}.XXXXXX")
cat >"$config" <<EOF
providers:
${providers.join('\n')}
cert-manager:
  url: file://$REPO_DIR/${certManager.path}
  version: ${certManager.path.split('/')[1]}
EOF
chmod 0644 "$config"
mv -f "$config" "$REPO_DIR/${CLUSTERCTL_CONFIG_FILE}"
log "local clusterctl repository ready: $REPO_DIR (${manifests.length} files verified)"
`;
}

function checkManifest(m: ManifestDownload): void {
  assertLiteral(m.url, `providerManifests.${m.key}.url`);
  if (!/^https?:\/\/[^\s'"\\`$]+$/.test(m.url)) throw new Error(`providerManifests.${m.key}: expected an http(s) URL, found "${m.url}"`);
  if (!PATH.test(m.path)) throw new Error(`providerManifests.${m.key}: expected a repository path <label>/<version>/<file>.yaml, found "${m.path}"`);
  if (!isSha256Hex(m.sha256)) throw new Error(`providerManifests.${m.key}.sha256: expected 64 lowercase hex characters, found "${m.sha256}"`);
}
