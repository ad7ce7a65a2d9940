import { METADATA_ADDRESS } from '../paths';

export const METADATA_BLOCK_SH = 'metadata-block.sh';

/**
 * Drops traffic from docker bridges (docker0, br-*) to the OpenStack metadata service: the user data
 * there carries the management cluster's CA key. Two places, both idempotent:
 * - `early`: raw table PREROUTING, installed before docker starts, untouched by docker;
 * - `docker-user`: the DOCKER-USER chain docker provides for operator rules.
 * `verify` fails unless both are in place.
 */
export function renderMetadataBlockSh(): string {
  return `#!/usr/bin/env bash
# Keeps containers away from the OpenStack metadata service. Usage: $0 early|docker-user|verify
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly METADATA=${METADATA_ADDRESS}/32
readonly BRIDGES=(docker0 'br-+')

# rule_action ACTION TABLE CHAIN BRIDGE: runs iptables ACTION (-C or -I) on the block rule.
rule_action() {
  local action=$1 table=$2 chain=$3 bridge=$4
  if [[ $action == -I ]]; then
    iptables -w -t "$table" -I "$chain" 1 -i "$bridge" -d "$METADATA" -j DROP
  else
    iptables -w -t "$table" "$action" "$chain" -i "$bridge" -d "$METADATA" -j DROP
  fi
}

ensure() {
  local table=$1 chain=$2 bridge
  for bridge in "\${BRIDGES[@]}"; do
    if ! rule_action -C "$table" "$chain" "$bridge" 2>/dev/null; then
      rule_action -I "$table" "$chain" "$bridge"
      log "added: iptables -t $table $chain -i $bridge -d $METADATA -j DROP"
    fi
  done
}

check() {
  local table=$1 chain=$2 bridge
  for bridge in "\${BRIDGES[@]}"; do
    rule_action -C "$table" "$chain" "$bridge" 2>/dev/null || die "missing: iptables -t $table $chain -i $bridge -d $METADATA -j DROP"
  done
}

case \${1:-} in
  early)
    ensure raw PREROUTING
    ;;
  docker-user)
    if ! iptables -w -n -L DOCKER-USER >/dev/null 2>&1; then
      die "the DOCKER-USER chain does not exist: is docker running with its iptables integration enabled?"
    fi
    ensure filter DOCKER-USER
    ;;
  verify)
    check raw PREROUTING
    check filter DOCKER-USER
    log "containers cannot reach $METADATA (raw PREROUTING and DOCKER-USER rules in place)"
    ;;
  *)
    die "usage: $0 early|docker-user|verify"
    ;;
esac
`;
}
