import { METADATA_BLOCK_UNITS } from '../paths';
import { METADATA_BLOCK_SH } from './metadata-block-sh';

export const ENABLE_METADATA_BLOCK_SH = 'enable-metadata-block.sh';

/**
 * Enables the metadata block units. `early` runs before docker is installed, so the block exists
 * before any container; `docker-user` runs once docker is up and verifies both rules.
 */
export function renderEnableMetadataBlockSh(): string {
  return `#!/usr/bin/env bash
# Enables the units that keep containers away from the metadata service. Usage: $0 early|docker-user
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

systemctl daemon-reload
case \${1:-} in
  early)
    systemctl enable --now ${METADATA_BLOCK_UNITS.early}
    ;;
  docker-user)
    systemctl enable ${METADATA_BLOCK_UNITS.dockerUser}
    systemctl restart ${METADATA_BLOCK_UNITS.dockerUser}
    "$(dirname "$0")/${METADATA_BLOCK_SH}" verify
    ;;
  *)
    die "usage: $0 early|docker-user"
    ;;
esac
`;
}
