/** File name of the helper library every bootstrap script sources. */
export const LIB_SH = 'lib.sh';

/** Shared bash helpers: timestamped logging, fatal errors, bounded retries. Sourced, not run. */
export function renderLibSh(): string {
  return `# shellcheck shell=bash
# Helpers shared by the capi-bootstrap scripts. Sourced, never run.

# log MESSAGE...: one timestamped progress line.
log() {
  printf '%s [capi-bootstrap] %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"
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
`;
}
