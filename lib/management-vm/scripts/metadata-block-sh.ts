import { METADATA_ADDRESS, METADATA_ADDRESS_V6, RULE_SHELL_FUNCTIONS, arrivingTrafficDropRule, forwardedTrafficDropRule, nonRootOutputRejectRule } from '../../config/metadata-block-rules';

export const METADATA_BLOCK_SH = 'metadata-block.sh';

/**
 * Keeps everything but root on the VM away from the OpenStack metadata service, IPv4 and IPv6: the
 * user data there carries the management cluster's CA key. Idempotent rule sets:
 * - `early` (before docker starts, untouched by docker): raw PREROUTING drops traffic from docker
 *   bridges (docker0, br-*: the kind node and every pod behind it); filter OUTPUT rejects host
 *   processes that do not run as root (cloud-init, the only reader, runs as root);
 * - `docker-user`: the same bridge rule in the DOCKER-USER chain docker provides for operator rules;
 * `verify` fails unless every rule is in place.
 */
export function renderMetadataBlockSh(): string {
  return `#!/usr/bin/env bash
# Keeps containers and non-root processes away from the OpenStack metadata service.
# Usage: $0 early|docker-user|verify
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly METADATA4=${METADATA_ADDRESS}/32
readonly METADATA6=${METADATA_ADDRESS_V6}/128
readonly BRIDGES=(docker0 'br-+')

# One rule per line: command table chain match... target
early_rules() {
  local bridge
  for bridge in "\${BRIDGES[@]}"; do
    echo "${arrivingTrafficDropRule('iptables', '$METADATA4', '$bridge')}"
    echo "${arrivingTrafficDropRule('ip6tables', '$METADATA6', '$bridge')}"
  done
  echo "${nonRootOutputRejectRule('iptables', '$METADATA4')}"
  echo "${nonRootOutputRejectRule('ip6tables', '$METADATA6')}"
}

docker_user_rules() {
  local bridge
  for bridge in "\${BRIDGES[@]}"; do
    echo "${forwardedTrafficDropRule('iptables', 'DOCKER-USER', '$METADATA4', '$bridge')}"
  done
}

${RULE_SHELL_FUNCTIONS}
case \${1:-} in
  early)
    early_rules | ensure
    ;;
  docker-user)
    if ! iptables -w -n -L DOCKER-USER >/dev/null 2>&1; then
      die "the DOCKER-USER chain does not exist: is docker running with its iptables integration enabled?"
    fi
    docker_user_rules | ensure
    ;;
  verify)
    early_rules | check
    docker_user_rules | check
    log "containers and non-root processes cannot reach $METADATA4 or $METADATA6 (raw PREROUTING, OUTPUT and DOCKER-USER rules in place)"
    ;;
  *)
    die "usage: $0 early|docker-user|verify"
    ;;
esac
`;
}
