import { shellQuote } from '../shell-quote';

export const PULL_NODE_IMAGE_SH = 'pull-node-image.sh';

/**
 * Pulls the kind node image (the largest download of the bootstrap) as soon as docker and its
 * metadata block are up, while the tools and manifests are still being downloaded; the kind
 * cluster step then finds it in place.
 */
export function renderPullNodeImageSh(nodeImage: string): string {
  return `#!/usr/bin/env bash
# Pulls the kind node image into docker. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly NODE_IMAGE=${shellQuote(nodeImage)}

if docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then
  log "$NODE_IMAGE is already present"
  exit 0
fi
log "pulling $NODE_IMAGE"
retry 5 20 docker pull -q "$NODE_IMAGE" >/dev/null
log "pulled $NODE_IMAGE"
`;
}
