#!/usr/bin/env bash
# One command after changing scripts/toolchain/providers.json (a version bump):
# build the providers into the mirror, verify it, dump the schemas, regenerate lib/gen.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/build.sh"
bash "$here/verify.sh"
bash "$here/schemas.sh"
node "$here/generate-bindings.js"
echo "[regenerate] done: review and commit schemas/providers and lib/gen"
