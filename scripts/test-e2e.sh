#!/usr/bin/env bash
# Tier 2+ tests: real terraform with the offline provider mirror, the local OpenStack and the
# local kube-apiserver. Suites that need a local service skip (and say so) when it is not
# running, unless LOCAL_CLOUD_REQUIRED=1 / LOCAL_KUBE_REQUIRED=1 / LOCAL_CAPI_REQUIRED=1 (what .ci/run
# sets). The control-loop suite starts and stops the Cluster API controllers (scripts/local-capi).
# Suites run side by side, each in an e2e lane of its own (scripts/e2e/run.js, scripts/e2e/lane).
#   npm run test:e2e                         all suites, three lanes (E2E_LANES=1: one after another)
#   npm run test:e2e -- <pattern>            suites whose path matches
#   npm run test:e2e -- --exclude <pattern>  all suites but those whose path matches
set -euo pipefail
cd "$(dirname "$0")/.."

# No-op when the pinned providers are cached; the first build takes ~4 min on 2 cores.
bash scripts/toolchain/build.sh
# shellcheck disable=SC1091  # sourced at run time from the toolchain
source scripts/toolchain/env.sh
export OS_CLIENT_CONFIG_FILE="${OS_CLIENT_CONFIG_FILE:-$HOME/.cache/capi-openstack-cdktf/local-cloud/clouds.yaml}"

echo "test:e2e: compiling the app"
npm run --silent build
export CAPI_E2E_BUILT=1   # suites skip their own build (they run side by side and read dist/)
exec node scripts/e2e/run.js "$@"
