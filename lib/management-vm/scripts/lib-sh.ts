/** File name of the helper library every bootstrap script sources. */
export const LIB_SH = 'lib.sh';

/** Download attempts per file (each bounded by curl's own time limits). */
export const DOWNLOAD_ATTEMPTS = 5;

/** Shared bash helpers: timestamped logging, fatal errors, bounded retries, verified downloads. Sourced, not run. */
export function renderLibSh(): string {
  return `# shellcheck shell=bash
# Helpers shared by the capi-bootstrap scripts. Sourced, never run.

# clusterctl asks GitHub for a newer release after every command; where GitHub is out of reach
# (air-gapped sites) each call then waits about 70 s for it. Every script sources this file.
export CLUSTERCTL_DISABLE_VERSIONCHECK=true

# log MESSAGE...: one timestamped progress line, with the step's name when a step logs (steps
# may run side by side, so their lines interleave).
log() {
  printf '%s [capi-bootstrap]%s %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "\${CAPI_BOOTSTRAP_STEP:+ [$CAPI_BOOTSTRAP_STEP]}" "$*"
}

# die MESSAGE...: logs an error and exits non-zero.
die() {
  log "ERROR: $*" >&2
  exit 1
}

# retry ATTEMPTS DELAY_SECONDS COMMAND...: runs COMMAND until it succeeds, at most ATTEMPTS times.
retry() {
  local attempts=$1 delay=$2 n=1
  shift 2
  until "$@"; do
    if ((n >= attempts)); then
      log "giving up after $n attempts: $*"
      return 1
    fi
    log "attempt $n/$attempts failed, retrying in \${delay}s: $*"
    sleep "$delay"
    n=$((n + 1))
  done
}

sha256_of() {
  sha256sum "$1" | awk '{ print $1 }'
}

# fetch_verified NAME URL SHA256 DEST MODE: downloads URL, checks its SHA-256 and moves it to DEST
# with MODE; a file already at DEST with that checksum is kept. A mismatch stops the bootstrap at
# once with both values in the log and leaves nothing behind.
fetch_verified() {
  local name=$1 url=$2 expected=$3 dest=$4 mode=$5 tmp actual
  if [[ -f $dest ]] && [[ $(sha256_of "$dest") == "$expected" ]]; then
    chmod "$mode" "$dest"
    log "$name: already installed, checksum verified"
    return 0
  fi
  tmp=$(mktemp "$(dirname "$dest")/.$(basename "$dest").XXXXXX")
  log "$name: downloading $url"
  if ! retry ${DOWNLOAD_ATTEMPTS} 10 curl -fsSL --connect-timeout 20 --max-time 600 -o "$tmp" "$url"; then
    rm -f "$tmp"
    die "$name: download of $url failed ${DOWNLOAD_ATTEMPTS} times"
  fi
  actual=$(sha256_of "$tmp")
  if [[ $actual != "$expected" ]]; then
    rm -f "$tmp"
    die "$name: CHECKSUM MISMATCH for $url: expected sha256 $expected, got $actual. Refusing to install it."
  fi
  chmod "$mode" "$tmp"
  mv -f "$tmp" "$dest"
  log "$name: sha256 $expected verified, installed to $dest"
}
`;
}
