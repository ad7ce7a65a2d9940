#!/usr/bin/env bash
# Builds the offline Terraform toolchain (npm run toolchain):
#   - every provider of scripts/toolchain/providers.json from its Go module, at the pinned version,
#     into an unpacked filesystem mirror under $HOME/.cache/capi-openstack-cdktf/providers-<hash>/mirror;
#   - a Terraform CLI config using only that mirror (no direct installation) plus a plugin cache dir;
#   - the Terraform CLI: `terraform` on PATH if >= providers.json terraform.minVersion, else OpenTofu
#     built from its Go module (exposed as bin/terraform).
# Providers already in the mirror are skipped, so a warm run takes a few seconds.
# Afterwards: source scripts/toolchain/env.sh
# Environment: CAPI_OPENSTACK_CDKTF_CACHE (cache root), TOOLCHAIN_FORCE_OPENTOFU=1 (ignore terraform on PATH).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

log() { printf '[toolchain] %s\n' "$*"; }
die() { printf '[toolchain] ERROR: %s\n' "$*" >&2; exit 1; }

toolchain_go_path
command -v go >/dev/null 2>&1 || die "Go is required to build the providers (expected on PATH or in /usr/local/go/bin)"
toolchain_paths || die "cannot read scripts/toolchain/providers.json"

export CHECKPOINT_DISABLE=1
export GOFLAGS="-mod=mod -buildvcs=false"
toolchain_go_env # no module is exempt from the checksum database
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export CGO_ENABLED=0
goos="$(go env GOOS)"
goarch="$(go env GOARCH)"
platform="${goos}_${goarch}"

mkdir -p "$TOOLCHAIN_MIRROR/registry.terraform.io" "$TOOLCHAIN_PLUGIN_CACHE" "$TOOLCHAIN_BIN_DIR"
# OpenTofu resolves "hashicorp/x" to registry.opentofu.org: it gets the same binaries, hard-linked
# (its mirror scan does not follow a symlinked hostname directory).
if [ -L "$TOOLCHAIN_MIRROR/registry.opentofu.org" ]; then
  rm -f "$TOOLCHAIN_MIRROR/registry.opentofu.org"
fi

work_root="$(mktemp -d)"
trap 'rm -rf "$work_root"' EXIT

# build_go_binary <label> <module> <moduleVersion> <package> <output>
# Builds <package> of <module>@<moduleVersion> through a generated wrapper module, so replace
# directives of the module (which `go install mod@version` refuses) are honoured.
build_go_binary() {
  local label="$1" module="$2" modver="$3" pkg="$4" out="$5"
  local wrap="$work_root/$label"
  mkdir -p "$wrap"
  (
    cd "$wrap"
    cat >go.mod <<GOMOD
module capi-openstack-cdktf.local/toolchain/$label

go $(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')
GOMOD
    local info gomod moddir
    info="$(go mod download -json "$module@$modver")" ||
      die "$label: cannot download $module@$modver from the Go module proxy"
    gomod="$(printf '%s' "$info" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);if(j.Error){console.error(j.Error);process.exit(1)}console.log(j.GoMod)})')"
    moddir="$(printf '%s' "$info" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir||""))')"
    # Copy the module's replace directives (relative paths resolved against its source tree).
    local rep
    # shellcheck disable=SC2016  # node script in single quotes
    while IFS= read -r rep; do
      [ -n "$rep" ] || continue
      log "  $label: replace $rep"
      go mod edit -replace="$rep"
    done < <(go mod edit -json "$gomod" | node -e '
      let s = "";
      process.stdin.on("data", (d) => (s += d)).on("end", () => {
        const path = require("path");
        for (const r of JSON.parse(s).Replace || []) {
          const oldSide = r.Old.Version ? `${r.Old.Path}@${r.Old.Version}` : r.Old.Path;
          let newSide;
          if (r.New.Version) newSide = `${r.New.Path}@${r.New.Version}`;
          else newSide = path.resolve(process.argv[1], r.New.Path);
          console.log(`${oldSide}=${newSide}`);
        }
      });' "$moddir")
    go mod edit -require="$module@$modver"
    go get "$pkg@$modver" >/dev/null 2>"$wrap/get.log" || {
      cat "$wrap/get.log" >&2
      die "$label: go get $pkg@$modver failed"
    }
    go build -trimpath -ldflags "-s -w" -o "$wrap/out" "$pkg" 2>"$wrap/build.log" || {
      cat "$wrap/build.log" >&2
      die "$label: go build $pkg failed"
    }
  )
  mkdir -p "$(dirname "$out")"
  mv -f "$wrap/out" "$out.tmp.$$"
  chmod 0755 "$out.tmp.$$"
  mv -f "$out.tmp.$$" "$out"
}

total_start=$SECONDS
log "cache: $TOOLCHAIN_DIR"
log "Go: $(go env GOVERSION), platform $platform"
built=0
while IFS=$'\t' read -r name source version module modver pkg; do
  ns="${source%%/*}"
  dest="$TOOLCHAIN_MIRROR/registry.terraform.io/$ns/$name/$version/$platform/terraform-provider-${name}_v$version"
  if [ -x "$dest" ]; then
    log "$source $version: present, skipped"
  else
    log "$source $version: building $pkg ($module@$modver) ..."
    start=$SECONDS
    build_go_binary "$name" "$module" "$modver" "$pkg" "$dest"
    log "$source $version: built in $((SECONDS - start))s ($(du -h "$dest" | cut -f1))"
    built=$((built + 1))
  fi
  tofu_dest="$TOOLCHAIN_MIRROR/registry.opentofu.org/${dest#"$TOOLCHAIN_MIRROR/registry.terraform.io/"}"
  if [ ! "$tofu_dest" -ef "$dest" ]; then
    mkdir -p "$(dirname "$tofu_dest")"
    ln -f "$dest" "$tofu_dest"
  fi
done < <(node "$here/providers.js" list)

# Terraform CLI: terraform on PATH if recent enough, else OpenTofu from its Go module.
min_tf="$(node "$here/providers.js" min-terraform)"
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }
cli=""
tofu_reason="no Terraform >= $min_tf on PATH"
if [ "${TOOLCHAIN_FORCE_OPENTOFU:-0}" = "1" ]; then
  tofu_reason="TOOLCHAIN_FORCE_OPENTOFU=1"
else
  # Skip our own bin/terraform symlink when looking for a system terraform.
  sys_tf="$(PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$TOOLCHAIN_BIN_DIR" | paste -sd: -)" command -v terraform || true)"
  if [ -n "$sys_tf" ]; then
    tf_ver="$(TF_CLI_CONFIG_FILE=/dev/null "$sys_tf" version -json 2>/dev/null |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).terraform_version)}catch{console.log("0")}})')"
    if version_ge "$tf_ver" "$min_tf"; then
      cli="$sys_tf"
      log "Terraform CLI: $sys_tf ($tf_ver)"
    else
      log "Terraform CLI: $sys_tf is $tf_ver, older than $min_tf; using OpenTofu instead"
    fi
  fi
fi
if [ -z "$cli" ]; then
  IFS=$'\t' read -r tofu_module tofu_modver tofu_pkg < <(node "$here/providers.js" tofu)
  tofu_bin="$TOOLCHAIN_CACHE_ROOT/opentofu-$tofu_modver/tofu"
  if [ -x "$tofu_bin" ]; then
    log "OpenTofu $tofu_modver: present, skipped"
  else
    log "OpenTofu $tofu_modver: building $tofu_pkg ($tofu_reason) ..."
    start=$SECONDS
    build_go_binary opentofu "$tofu_module" "$tofu_modver" "$tofu_pkg" "$tofu_bin"
    log "OpenTofu $tofu_modver: built in $((SECONDS - start))s"
  fi
  cli="$tofu_bin"
fi
ln -sfn "$cli" "$TOOLCHAIN_BIN_DIR/terraform"

# CLI config: the mirror only. Without a `direct {}` block nothing is fetched from a registry.
rc_tmp="$TOOLCHAIN_TERRAFORMRC.tmp.$$"
cat >"$rc_tmp" <<RC
# Generated by scripts/toolchain/build.sh. Offline: providers come only from this filesystem mirror.
provider_installation {
  filesystem_mirror {
    path = "$TOOLCHAIN_MIRROR"
  }
}
plugin_cache_dir   = "$TOOLCHAIN_PLUGIN_CACHE"
disable_checkpoint = true
RC
mv -f "$rc_tmp" "$TOOLCHAIN_TERRAFORMRC"

printf 'terraform=%s\nbuilt=%s\n' "$cli" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$TOOLCHAIN_READY"
log "done in $((SECONDS - total_start))s ($built provider(s) built)"
log "use it with: source scripts/toolchain/env.sh   (TF_CLI_CONFIG_FILE=$TOOLCHAIN_TERRAFORMRC)"
