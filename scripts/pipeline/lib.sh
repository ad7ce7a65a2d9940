# shellcheck shell=bash
# Shared by scripts/pipeline/plan and scripts/pipeline/apply (sourced, not run).
# shellcheck disable=SC2034  # variables set here are used by the scripts that source this file

PIPELINE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PIPELINE_HELPER="$PIPELINE_ROOT/scripts/pipeline/stacks.js"
PIPELINE_START=$(date +%s)

log() { printf '[pipeline %4ss] %s\n' "$(($(date +%s) - PIPELINE_START))" "$*" >&2; }
die() {
  printf '[pipeline] ERROR: %s\n' "$*" >&2
  exit 1
}

# pipeline_common_env: checks ENVIRONMENT, sets PIPELINE_DIR, loads the offline Terraform toolchain.
pipeline_common_env() {
  [ -n "${ENVIRONMENT:-}" ] || die "ENVIRONMENT is not set: name one environment (the file environments/<name>.yaml)"
  case "$ENVIRONMENT" in
    *,* | *' '* | *'*'*) die "ENVIRONMENT must name exactly one environment, found \"$ENVIRONMENT\"" ;;
  esac
  PIPELINE_DIR="${PIPELINE_DIR:-$PIPELINE_ROOT/pipeline-out/$ENVIRONMENT}"
  case "$PIPELINE_DIR" in
    /*) ;;
    *) PIPELINE_DIR="$PWD/$PIPELINE_DIR" ;;
  esac
  export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0
  # shellcheck source-path=SCRIPTDIR source=../toolchain/env.sh
  . "$PIPELINE_ROOT/scripts/toolchain/env.sh" ||
    die "the offline Terraform toolchain is not built: run npm run toolchain (CI: cache ~/.cache/capi-openstack-cdktf)"
  command -v terraform >/dev/null || die "terraform is not on PATH after scripts/toolchain/env.sh"
}

# pipeline_build: compiles the app (incremental; the readiness gate runs dist/bin/wait-for-management.js).
pipeline_build() {
  [ -d "$PIPELINE_ROOT/node_modules/cdktf" ] || die "node_modules is missing: run npm ci first"
  log "compiling the app (npm run build)"
  (cd "$PIPELINE_ROOT" && npm run --silent build) || die "npm run build failed"
}

# stack_init <dir>: terraform init from the provider mirror, output kept only on failure.
stack_init() {
  local dir="$1" out
  if ! out=$(terraform -chdir="$dir" init -input=false -no-color -lock-timeout="${PIPELINE_LOCK_TIMEOUT:-5m}" 2>&1); then
    printf '%s\n' "$out" >&2
    die "terraform init failed in $dir"
  fi
}

# git_commit: HEAD of the checkout, or "unknown" outside a git work tree.
git_commit() {
  git -C "$PIPELINE_ROOT" rev-parse HEAD 2>/dev/null || echo unknown
}

# ci_state_guard <stacks-dir>: local state in CI is lost with the runner; refuse unless told otherwise.
ci_state_guard() {
  local types
  types=$(node "$PIPELINE_HELPER" backend-types "$1" | paste -sd, -)
  if [ "${CI:-}" = "true" ] && [[ ",$types," == *,local,* ]] && [ "${PIPELINE_ALLOW_LOCAL_STATE:-}" != 1 ]; then
    die "CI=true but the stacks keep their state in local files on this runner (backend: $types): set PIPELINE_BACKEND=gitlab, or PIPELINE_BACKEND=<type> with PIPELINE_BACKEND_CONFIG, or give the stacks a backend in your app (scripts/pipeline/README.md); PIPELINE_ALLOW_LOCAL_STATE=1 accepts local state"
  fi
}

# pipeline_backend_env <backend>: credentials a backend reads from the environment.
# gitlab: GitLab-managed Terraform state (http backend) with the job token.
pipeline_backend_env() {
  if [ "$1" = gitlab ]; then
    [ -n "${CI_JOB_TOKEN:-}${TF_HTTP_PASSWORD:-}" ] || die "PIPELINE_BACKEND=gitlab needs CI_JOB_TOKEN (GitLab CI) or TF_HTTP_USERNAME/TF_HTTP_PASSWORD"
    export TF_HTTP_USERNAME="${TF_HTTP_USERNAME:-gitlab-ci-token}"
    export TF_HTTP_PASSWORD="${TF_HTTP_PASSWORD:-${CI_JOB_TOKEN:-}}"
  fi
}

# pipeline_backend_config: sets BACKEND_TYPE and BACKEND_CONFIG (JSON settings, "{stack}" = stack
# name) from PIPELINE_BACKEND / PIPELINE_BACKEND_CONFIG; BACKEND_TYPE is empty when the synthesized
# local backend (state files next to the checkout) stays.
pipeline_backend_config() {
  BACKEND_TYPE="${PIPELINE_BACKEND:-}"
  BACKEND_CONFIG=""
  case "$BACKEND_TYPE" in
    '') ;;
    gitlab)
      if [ -z "${CI_API_V4_URL:-}" ] || [ -z "${CI_PROJECT_ID:-}" ]; then
        die "PIPELINE_BACKEND=gitlab needs CI_API_V4_URL and CI_PROJECT_ID (set by GitLab CI)"
      fi
      local state="$CI_API_V4_URL/projects/$CI_PROJECT_ID/terraform/state/{stack}"
      BACKEND_TYPE=http
      BACKEND_CONFIG="{\"address\":\"$state\",\"lock_address\":\"$state/lock\",\"unlock_address\":\"$state/lock\",\"lock_method\":\"POST\",\"unlock_method\":\"DELETE\",\"retry_wait_min\":5}"
      ;;
    *)
      [ -n "${PIPELINE_BACKEND_CONFIG:-}" ] || die "PIPELINE_BACKEND=$BACKEND_TYPE needs PIPELINE_BACKEND_CONFIG (JSON settings of the backend; \"{stack}\" is replaced by the stack name)"
      BACKEND_CONFIG="$PIPELINE_BACKEND_CONFIG"
      ;;
  esac
}
