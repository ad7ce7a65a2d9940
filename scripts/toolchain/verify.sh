#!/usr/bin/env bash
# Checks the offline toolchain: `terraform init` of a root module requiring every pinned provider
# installs them from the filesystem mirror only and writes a lock file with h1 hashes, and
# `terraform providers lock -fs-mirror` works against the same mirror. No network.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=env.sh
. "$here/env.sh"

log() { printf '[verify] %s\n' "$*"; }
fail() { printf '[verify] FAIL: %s\n' "$*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node "$here/providers.js" main-tf >"$work/main.tf"
platform="$(terraform version -json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).platform))')"

start=$SECONDS
terraform -chdir="$work" init -input=false -backend=false -no-color >"$work/init.log" 2>&1 ||
  { cat "$work/init.log" >&2; fail "terraform init from the mirror failed"; }
log "terraform init: ok in $((SECONDS - start))s"

# OpenTofu records providers under its own registry host.
host=registry.terraform.io
if terraform version | head -n1 | grep -q '^OpenTofu'; then host=registry.opentofu.org; fi
checked=0
while IFS=$'\t' read -r _name source version _; do
  block="$(awk -v p="provider \"$host/$source\"" 'index($0, p) == 1 {on=1} on {print} on && /^}/ {exit}' "$work/.terraform.lock.hcl")"
  [ -n "$block" ] || fail "lock file has no entry for $source"
  grep -q "version *= *\"$version\"" <<<"$block" || fail "lock file pins $source to another version than $version"
  grep -q '"h1:' <<<"$block" || fail "lock file has no h1 hash for $source"
  checked=$((checked + 1))
done < <(node "$here/providers.js" list)
log "lock file from init: $checked providers with version and h1 hash"

cp "$work/.terraform.lock.hcl" "$work/lock.from-init"
rm -f "$work/.terraform.lock.hcl"
terraform -chdir="$work" providers lock -no-color -fs-mirror="$CAPI_OPENSTACK_CDKTF_PROVIDER_MIRROR" \
  -platform="$platform" >"$work/lock.log" 2>&1 || { cat "$work/lock.log" >&2; fail "terraform providers lock -fs-mirror failed"; }
cmp -s "$work/.terraform.lock.hcl" "$work/lock.from-init" ||
  fail "providers lock -fs-mirror wrote a different lock file than init: $(diff "$work/lock.from-init" "$work/.terraform.lock.hcl" | head -20)"
log "terraform providers lock -fs-mirror -platform=$platform: same lock file as init"

terraform -chdir="$work" validate -no-color >/dev/null || fail "terraform validate failed"
log "terraform validate: ok"
log "all checks passed"
