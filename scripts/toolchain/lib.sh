# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables set here are used by the scripts that source this file
# Shared paths of the offline Terraform toolchain. Sourced by build.sh, env.sh, schemas.sh.
# Only defines variables and functions; never exits (env.sh is sourced into interactive shells).
#
# Layout (CAPI_OPENSTACK_CDKTF_CACHE defaults to $HOME/.cache/capi-openstack-cdktf):
#   $CACHE/providers-<hash>/mirror/registry.terraform.io/<ns>/<name>/<version>/<os>_<arch>/terraform-provider-<name>_v<version>
#   $CACHE/providers-<hash>/mirror/registry.opentofu.org/...   hard links to the same binaries (for OpenTofu)
#   $CACHE/providers-<hash>/terraformrc        Terraform CLI config: filesystem_mirror only, plugin_cache_dir
#   $CACHE/providers-<hash>/plugin-cache/      plugin_cache_dir
#   $CACHE/providers-<hash>/bin/terraform      symlink to the chosen Terraform (or OpenTofu) CLI
#   $CACHE/providers-<hash>/READY              written last by build.sh
#   $CACHE/opentofu-<version>/tofu             OpenTofu built from its Go module when no Terraform >= min is on PATH
# <hash> covers providers.json's provider list and the build recipe (see providers.js).

TOOLCHAIN_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLCHAIN_REPO_DIR="$(cd "$TOOLCHAIN_SCRIPT_DIR/../.." && pwd)"
TOOLCHAIN_CACHE_ROOT="${CAPI_OPENSTACK_CDKTF_CACHE:-$HOME/.cache/capi-openstack-cdktf}"

# Go lives in /usr/local/go/bin on the project machines; keep a PATH entry for it.
toolchain_go_path() {
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    PATH="/usr/local/go/bin:$PATH"
    export PATH
  fi
}

# Every module is checked against the Go checksum database (reached through the module proxy):
# nothing inherited from the caller may turn that off, neither variables nor `go env -w` settings
# (GOENV=off: go reads no user configuration file; an unset variable would fall back to it).
toolchain_go_env() {
  export GOENV=off
  export GOSUMDB=sum.golang.org
  unset GONOSUMDB GONOSUMCHECK GOINSECURE GOPRIVATE GONOPROXY
}

# Sets TOOLCHAIN_HASH, TOOLCHAIN_DIR, TOOLCHAIN_MIRROR, TOOLCHAIN_TERRAFORMRC, TOOLCHAIN_PLUGIN_CACHE,
# TOOLCHAIN_BIN_DIR, TOOLCHAIN_READY. Returns non-zero if providers.json cannot be read.
toolchain_paths() {
  if ! command -v node >/dev/null 2>&1; then
    echo "toolchain: node is required (it reads scripts/toolchain/providers.json)" >&2
    return 1
  fi
  TOOLCHAIN_HASH="$(node "$TOOLCHAIN_SCRIPT_DIR/providers.js" hash)" || return 1
  TOOLCHAIN_DIR="$TOOLCHAIN_CACHE_ROOT/providers-$TOOLCHAIN_HASH"
  TOOLCHAIN_MIRROR="$TOOLCHAIN_DIR/mirror"
  TOOLCHAIN_TERRAFORMRC="$TOOLCHAIN_DIR/terraformrc"
  TOOLCHAIN_PLUGIN_CACHE="$TOOLCHAIN_DIR/plugin-cache"
  TOOLCHAIN_BIN_DIR="$TOOLCHAIN_DIR/bin"
  TOOLCHAIN_READY="$TOOLCHAIN_DIR/READY"
}
