# shellcheck shell=bash
# Source this file to use the project's offline Terraform toolchain:
#   source scripts/toolchain/env.sh
# Exports TF_CLI_CONFIG_FILE (filesystem mirror only), TF_PLUGIN_CACHE_DIR, CHECKPOINT_DISABLE=1,
# TF_CLI_ARGS_providers_lock (lock from the mirror), TERRAFORM_BINARY_NAME (read by cdktf-cli) and puts the chosen terraform binary first on PATH.
# Returns non-zero with a clear message if the toolchain was not built (run: npm run toolchain).

toolchain_env_main() {
  local here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  # shellcheck source-path=SCRIPTDIR source=lib.sh
  . "$here/lib.sh" || return 1
  toolchain_paths || return 1
  if [ ! -f "$TOOLCHAIN_READY" ] || [ ! -f "$TOOLCHAIN_TERRAFORMRC" ] || [ ! -x "$TOOLCHAIN_BIN_DIR/terraform" ]; then
    echo "toolchain: not built for the pinned provider set (expected $TOOLCHAIN_READY)." >&2
    echo "toolchain: build it with: npm run toolchain   (bash scripts/toolchain/build.sh)" >&2
    return 1
  fi
  export TF_CLI_CONFIG_FILE="$TOOLCHAIN_TERRAFORMRC"
  # Terraform's plugin cache is not safe for concurrent `terraform init`s (one re-links an entry the
  # other is verifying): runs side by side on one machine may each bring their own cache directory.
  export TF_PLUGIN_CACHE_DIR="${TF_PLUGIN_CACHE_DIR:-$TOOLCHAIN_PLUGIN_CACHE}"
  export CHECKPOINT_DISABLE=1
  export TERRAFORM_BINARY_NAME="$TOOLCHAIN_BIN_DIR/terraform"
  export CAPI_OPENSTACK_CDKTF_PROVIDER_MIRROR="$TOOLCHAIN_MIRROR"
  # `terraform providers lock` ignores provider_installation and asks the origin registries unless
  # given -fs-mirror; cdktf deploy/diff run it on a stack without a lock file. Point it at the mirror.
  export TF_CLI_ARGS_providers_lock="-fs-mirror=$TOOLCHAIN_MIRROR"
  case ":$PATH:" in
    *":$TOOLCHAIN_BIN_DIR:"*) ;;
    *) export PATH="$TOOLCHAIN_BIN_DIR:$PATH" ;;
  esac
}

toolchain_env_main
