import type { PinnedDownload } from '../../config/downloads';
import { isSha256Hex } from '../../config/downloads';
import { BOOTSTRAP_PATHS } from '../paths';
import { shellQuote } from '../shell-quote';
import { assertLiteral } from '../tokens';

export const DOWNLOAD_TOOLS_SH = 'download-tools.sh';

/** Binaries to install, by the name they get in the bin directory. */
export type ToolDownloads = Readonly<Record<string, PinnedDownload>>;

export { DOWNLOAD_ATTEMPTS } from './lib-sh';

/**
 * Downloads each binary, verifies its SHA-256 and installs it. A checksum mismatch stops the
 * bootstrap at once with both values in the log; a binary already installed with the right
 * checksum is kept.
 */
export function renderDownloadToolsSh(tools: ToolDownloads): string {
  const installs = Object.entries(tools).map(([name, d]) => {
    checkDownload(name, d);
    return `install_verified ${shellQuote(name)} ${shellQuote(d.url)} ${d.sha256}`;
  });
  return `#!/usr/bin/env bash
# Installs pinned binaries after checking their SHA-256. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# CAPI_BOOTSTRAP_BIN_DIR exists for tests; on the VM the default applies.
readonly BIN_DIR=\${CAPI_BOOTSTRAP_BIN_DIR:-${BOOTSTRAP_PATHS.binDir}}

# install_verified NAME URL SHA256
install_verified() {
  fetch_verified "$1" "$2" "$3" "$BIN_DIR/$1" 0755
}

# report_version NAME ARGS...: runs the installed binary once, so a broken binary fails here.
report_version() {
  local name=$1 out
  shift
  out=$("$BIN_DIR/$name" "$@" 2>&1) || die "$name does not run: $out"
  log "$name: \${out%%$'\\n'*}"
}

${installs.join('\n')}

${Object.keys(tools).map((name) => `report_version ${shellQuote(name)} ${name === 'kubectl' ? 'version --client' : 'version'}`).join('\n')}
`;
}

function checkDownload(name: string, d: PinnedDownload): void {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`downloads: invalid binary name "${name}"`);
  assertLiteral(d.url, `versions.${name}.url`);
  assertLiteral(d.sha256, `versions.${name}.sha256`);
  if (!/^https:\/\/[^\s'"]+$/.test(d.url)) {
    throw new Error(`versions.${name}.url: expected an https:// URL, found "${d.url}"`);
  }
  if (!isSha256Hex(d.sha256)) {
    throw new Error(`versions.${name}.sha256: expected 64 lowercase hex characters, found "${d.sha256}"`);
  }
}
