# shellcheck shell=bash
# Shared by scripts/pipeline/plan and scripts/pipeline/apply (sourced, not run).
# shellcheck disable=SC2034  # variables set here are used by the scripts that source this file

PIPELINE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PIPELINE_HELPER="$PIPELINE_ROOT/scripts/pipeline/stacks.js"
PIPELINE_REVIEW="$PIPELINE_ROOT/scripts/pipeline/review.js"
PIPELINE_START=$(date +%s)

log() { printf '[pipeline %4ss] %s\n' "$(($(date +%s) - PIPELINE_START))" "$*" >&2; }
die() {
  printf '[pipeline] ERROR: %s\n' "$*" >&2
  exit 1
}

# pipeline_common_env [--fresh-dir]: checks ENVIRONMENT, sets PIPELINE_DIR (with --fresh-dir: checks
# that the plan stage may delete and recreate it), loads the offline Terraform toolchain. Every check
# runs before anything is deleted or built.
pipeline_common_env() {
  [ -n "${ENVIRONMENT:-}" ] || die "ENVIRONMENT is not set: name one environment (the file environments/<name>.yaml)"
  case "$ENVIRONMENT" in
    *,* | *' '* | *'*'*) die "ENVIRONMENT must name exactly one environment, found \"$ENVIRONMENT\"" ;;
  esac
  # the rule of lib/config/environment-name.ts: no "/", "..", or anything else a path could use
  [[ "$ENVIRONMENT" =~ ^[a-z]([-a-z0-9]{0,22}[a-z0-9])?$ ]] ||
    die "ENVIRONMENT must be an environment name (lowercase letters, digits and \"-\", at most 24), found \"$ENVIRONMENT\""
  PIPELINE_DIR="${PIPELINE_DIR:-$PIPELINE_ROOT/pipeline-out/$ENVIRONMENT}"
  case "$PIPELINE_DIR" in
    /*) ;;
    *) PIPELINE_DIR="$PWD/$PIPELINE_DIR" ;;
  esac
  if [ "${1:-}" = --fresh-dir ]; then pipeline_dir_replaceable; fi
  export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0
  # shellcheck source-path=SCRIPTDIR source=../toolchain/env.sh
  . "$PIPELINE_ROOT/scripts/toolchain/env.sh" ||
    die "the offline Terraform toolchain is not built: run npm run toolchain (CI: cache ~/.cache/capi-openstack-cdktf)"
  command -v terraform >/dev/null || die "terraform is not on PATH after scripts/toolchain/env.sh"
}

# pipeline_dir_replaceable: dies unless PIPELINE_DIR may be deleted: not "/", the home directory,
# the checkout or a folder above it, and either missing, empty or an earlier run's artifact
# folder (it holds pipeline.json).
pipeline_dir_replaceable() {
  local dir root
  dir="$(realpath -m -- "$PIPELINE_DIR")"
  root="$(realpath -m -- "$PIPELINE_ROOT")"
  case "$root/" in
    "$dir"/*) die "PIPELINE_DIR=$PIPELINE_DIR is the checkout or a folder above it: refusing to delete it (name a folder of its own, e.g. pipeline-out/$ENVIRONMENT)" ;;
  esac
  if [ "$dir" = / ] || [ "$dir" = "$(realpath -m -- "${HOME:-/}")" ]; then
    die "PIPELINE_DIR=$PIPELINE_DIR is / or the home directory: refusing to delete it"
  fi
  if [ -e "$dir" ] && { [ ! -d "$dir" ] || [ -L "$PIPELINE_DIR" ]; }; then
    die "PIPELINE_DIR=$PIPELINE_DIR is not a plain folder: refusing to delete it"
  fi
  if [ -d "$dir" ] && [ -n "$(ls -A -- "$dir")" ] && [ ! -f "$dir/pipeline.json" ]; then
    die "PIPELINE_DIR=$PIPELINE_DIR holds files but no pipeline.json (not an earlier plan's artifact folder): refusing to delete it"
  fi
}

# pipeline_build: compiles the app (incremental; the readiness gate runs dist/bin/wait-for-management.js),
# without the job's secrets in the compiler's environment (scripts/pipeline/without-secrets).
pipeline_build() {
  [ -d "$PIPELINE_ROOT/node_modules/cdktf" ] || die "node_modules is missing: run npm ci first"
  log "compiling the app (npm run build)"
  (cd "$PIPELINE_ROOT" && "$PIPELINE_ROOT/scripts/pipeline/without-secrets" npm run --silent build) || die "npm run build failed"
}

# pipeline_synth <outdir>: synthesizes ENVIRONMENT with the app of cdktf.json into <outdir> and
# points every stack at the pipeline's state backend (pipeline_backend_config first). The plan
# stage and the apply stage each run it: the apply compares the saved plans with its own result.
pipeline_synth() {
  local out="$1" app
  # The app of cdktf.json: the ready app (node dist/main.js) or your own composition of the library.
  app=$(node "$PIPELINE_HELPER" app "$PIPELINE_ROOT/cdktf.json")
  rm -rf "$out"
  (cd "$PIPELINE_ROOT" && ENVIRONMENT="$ENVIRONMENT" CDKTF_OUTDIR="$out" bash -c "$app") || die "synthesis of $ENVIRONMENT failed (app: $app; see above)"
  [ -f "$out/manifest.json" ] || die "synthesis wrote no $out/manifest.json (app: $app)"
  if [ -n "$BACKEND_TYPE" ]; then node "$PIPELINE_HELPER" backend-override "$out/stacks" "$BACKEND_TYPE" "$BACKEND_CONFIG"; fi
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
    die "CI=true but the stacks keep their state in local files on this runner (backend: $types): give the environment file a stateBackend (S3), or set PIPELINE_BACKEND=<type> with PIPELINE_BACKEND_CONFIG, or give the stacks a backend in your app (scripts/pipeline/README.md, State); PIPELINE_ALLOW_LOCAL_STATE=1 accepts local state"
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
      gitlab_state_readers_acknowledged
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

# gitlab_state_readers_acknowledged: dies unless PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED names
# this project. GitLab-managed Terraform state is readable through the API by every member with the
# Developer role, whatever protected branches, protected variables and approvals say, and the
# management stack's state holds the cluster CA key, the admin key and every cluster's credential.
gitlab_state_readers_acknowledged() {
  local project="${CI_PROJECT_PATH:-$CI_PROJECT_ID}"
  [ "${PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED:-}" = "$project" ] && return 0
  local found=""
  [ -z "${PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED:-}" ] || found=", found \"$(printf '%s' "$PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED" | head -c 100 | tr -c '[:print:]' '?')\""
  die "PIPELINE_BACKEND=gitlab keeps the state in GitLab-managed Terraform state, which every member of $project with the Developer role or higher can read through the API (protected branches, protected variables and approvals do not restrict it), and that state holds the management cluster's CA key, its admin key and every cluster's cloud credential. Keep the state in an S3 bucket instead (leave PIPELINE_BACKEND empty and give the environment file a stateBackend, or PIPELINE_BACKEND=s3 with PIPELINE_BACKEND_CONFIG; scripts/pipeline/README.md, State), or, if every Developer of $project may hold these secrets, set the CI/CD variable PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED=$project$found"
}

# Saved plans embed the prior state, secrets included. The plan stage encrypts each one into
# pipeline.tfplan.gpg (gpg, integrity-protected) and removes the clear file; the apply stage
# decrypts it and removes the clear copy after use. Two ways:
#   PIPELINE_PLAN_RECIPIENT     (recommended) an ASCII-armored OpenPGP public key: plans are
#                               encrypted to it; only the apply stage holds the private half,
#                               PIPELINE_PLAN_PRIVATE_KEY (armored, no passphrase: the CI secret
#                               store protects it), so a plan job cannot read an earlier plan.
#   PIPELINE_PLAN_KEY           a shared passphrase (AES-256): plan and apply hold the same secret.
# In GitHub Actions and GitLab CI one of them is required: artifacts leave the runner.
plan_key_required() {
  if [ -z "${PIPELINE_PLAN_RECIPIENT:-}${PIPELINE_PLAN_KEY:-}" ] && { [ "${GITHUB_ACTIONS:-}" = true ] || [ "${GITLAB_CI:-}" = true ]; }; then
    die "PIPELINE_PLAN_RECIPIENT is not set: saved plans hold state secrets and are uploaded as artifacts; set PIPELINE_PLAN_RECIPIENT (an armored OpenPGP public key) for the plan job and PIPELINE_PLAN_PRIVATE_KEY (its private half) for the apply job only, or the shared passphrase PIPELINE_PLAN_KEY"
  fi
}

# gpg_batch HOME ARGS...: gpg in batch mode with a throw-away home (no keyring of the user touched).
gpg_batch() {
  local home="$1"
  shift
  gpg --homedir "$home" --batch --yes --quiet "$@"
}

# gpg_with_key ARGS...: gpg with PIPELINE_PLAN_KEY as the passphrase (read from a file descriptor,
# never from the command line).
gpg_with_key() {
  local home rc=0
  home="$(mktemp -d)"
  gpg_batch "$home" --pinentry-mode loopback --passphrase-fd 3 "$@" 3<<<"$PIPELINE_PLAN_KEY" || rc=$?
  rm -rf "$home"
  return "$rc"
}

# seal_plan <stack dir>: pipeline.tfplan -> pipeline.tfplan.gpg (no-op without a key).
seal_plan() {
  local home rc=0
  [ -n "${PIPELINE_PLAN_RECIPIENT:-}${PIPELINE_PLAN_KEY:-}" ] || return 0
  command -v gpg >/dev/null || die "plans are to be encrypted but gpg is not installed (apt-get install gnupg)"
  if [ -n "${PIPELINE_PLAN_RECIPIENT:-}" ]; then
    home="$(mktemp -d)"
    printf '%s\n' "$PIPELINE_PLAN_RECIPIENT" >"$home/recipient.asc"
    gpg_batch "$home" --trust-model always --recipient-file "$home/recipient.asc" --encrypt --output "$1/pipeline.tfplan.gpg" "$1/pipeline.tfplan" || rc=$?
    rm -rf "$home"
    [ "$rc" = 0 ] || die "encrypting the saved plan in $1 to PIPELINE_PLAN_RECIPIENT failed (is it an armored OpenPGP public key?)"
  else
    gpg_with_key --symmetric --cipher-algo AES256 --output "$1/pipeline.tfplan.gpg" "$1/pipeline.tfplan" ||
      die "encrypting the saved plan in $1 failed"
  fi
  rm -f "$1/pipeline.tfplan"
}

# unseal_plan <stack dir> [<dest dir>]: <stack dir>/pipeline.tfplan.gpg -> <dest dir>/pipeline.tfplan
# (mode 600; dest dir defaults to the stack dir) when the plan was sealed.
unseal_plan() {
  local home rc=0 dest="${2:-$1}"
  [ -f "$1/pipeline.tfplan.gpg" ] || return 0
  command -v gpg >/dev/null || die "the saved plan in $1 is encrypted but gpg is not installed (apt-get install gnupg)"
  if [ -n "${PIPELINE_PLAN_PRIVATE_KEY:-}" ]; then
    home="$(mktemp -d)"
    printf '%s\n' "$PIPELINE_PLAN_PRIVATE_KEY" | gpg_batch "$home" --import 2>/dev/null || rc=$?
    if [ "$rc" = 0 ]; then (umask 077 && gpg_batch "$home" --pinentry-mode loopback --passphrase '' --decrypt --output "$dest/pipeline.tfplan" "$1/pipeline.tfplan.gpg") || rc=$?; fi
    rm -rf "$home"
    [ "$rc" = 0 ] || die "decrypting the saved plan in $1 failed: PIPELINE_PLAN_PRIVATE_KEY is not the private half of the plan stage's PIPELINE_PLAN_RECIPIENT, or the artifact was modified"
  elif [ -n "${PIPELINE_PLAN_KEY:-}" ]; then
    (umask 077 && gpg_with_key --decrypt --output "$dest/pipeline.tfplan" "$1/pipeline.tfplan.gpg") ||
      die "decrypting the saved plan in $1 failed: wrong PIPELINE_PLAN_KEY or a modified artifact"
  else
    die "the saved plan in $1 is encrypted: set PIPELINE_PLAN_PRIVATE_KEY (the private half of the plan stage's PIPELINE_PLAN_RECIPIENT) or PIPELINE_PLAN_KEY (the plan stage's passphrase)"
  fi
}
