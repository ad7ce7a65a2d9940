# shellcheck shell=bash disable=SC2034  # the variables set here are used by the scripts that source this file
# shellcheck source-path=SCRIPTDIR
# Shared helpers for scripts/local-s3/*. Sourced, not executed.

LOCAL_S3_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# CACHE_ROOT, the Go environment (module proxy + checksum database), go_mod_dir, pid_alive and
# with_heartbeat come from local-kube.
# shellcheck source=../local-kube/lib.sh
. "$LOCAL_S3_DIR/../local-kube/lib.sh"

log() { printf '[local-s3 %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-s3] ERROR: %s\n' "$*" >&2; exit 1; }

# versitygw: an S3 server on a plain directory, built from its Go module. Its conditional PUT
# (If-None-Match: *) is exclusive, which Swift's S3 API is not (docs/concepts.md, "State").
VERSITYGW_MODULE=github.com/versity/versitygw
VERSITYGW_VERSION=v1.8.0
LOCAL_S3_BIN="${LOCAL_S3_BIN:-$CACHE_ROOT/local-s3-versitygw${VERSITYGW_VERSION#v}/versitygw}"
# Runtime state: objects, credentials, log, pid.
LOCAL_S3_STATE="${LOCAL_S3_STATE:-$CACHE_ROOT/local-s3}"
LOCAL_S3_PORT="${LOCAL_S3_PORT:-9410}"
LOCAL_S3_REGION=RegionOne
LOCAL_S3_ENDPOINT="http://127.0.0.1:$LOCAL_S3_PORT"

# s3_answers: any HTTP answer on the endpoint (an anonymous GET / is refused with 403 once it serves).
s3_answers() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$LOCAL_S3_ENDPOINT/" || true)" != 000 ]; }
s3_alive() { pid_alive versitygw "$LOCAL_S3_STATE/run"; }
