import { BOOTSTRAP_PATHS } from '../paths';

export interface DockerScriptProps {
  /** MTU for docker (and so for the kind network); 0 detects it from the default route interface. */
  readonly mtu: number;
}

export const DOCKER_SH = 'install-docker.sh';

/**
 * Installs Ubuntu's docker.io (apt checks the archive signatures), with /etc/docker/daemon.json
 * written first: the synth-time base plus `mtu`. kind creates its network with the MTU of docker's
 * default bridge, so the nodes and pods inherit it.
 */
export function renderDockerSh(props: DockerScriptProps): string {
  if (!Number.isInteger(props.mtu) || props.mtu < 0 || props.mtu > 9000 || (props.mtu > 0 && props.mtu < 576)) {
    throw new Error(`mtu: expected 0 (detect) or an integer between 576 and 9000, found ${props.mtu}`);
  }
  return `#!/usr/bin/env bash
# Installs docker with the VM's MTU. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly CONFIGURED_MTU=${props.mtu}
readonly DAEMON_BASE=${BOOTSTRAP_PATHS.dockerDaemonBase}
readonly DAEMON_JSON=/etc/docker/daemon.json

# MTU of the interface that carries the default route.
detect_mtu() {
  local dev
  dev=$(ip -o -4 route show default | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }')
  if [[ -z $dev ]]; then
    die "cannot detect the MTU: there is no IPv4 default route"
  fi
  cat "/sys/class/net/$dev/mtu"
}

if ((CONFIGURED_MTU > 0)); then
  mtu=$CONFIGURED_MTU
  log "docker MTU $mtu (configured)"
else
  mtu=$(detect_mtu)
  log "docker MTU $mtu (detected on the default route interface)"
fi
if ! [[ $mtu =~ ^[0-9]+$ ]] || ((mtu < 576 || mtu > 9000)); then
  die "MTU '$mtu' is outside 576..9000"
fi

install -d -m 0755 /etc/docker
candidate=$(mktemp)
trap 'rm -f "$candidate"' EXIT
python3 - "$DAEMON_BASE" "$mtu" >"$candidate" <<'PY'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    config = json.load(f)
config["mtu"] = int(sys.argv[2])
print(json.dumps(config, indent=2, sort_keys=True))
PY
changed=0
if ! cmp -s "$candidate" "$DAEMON_JSON"; then
  install -m 0644 "$candidate" "$DAEMON_JSON"
  changed=1
  log "wrote $DAEMON_JSON"
fi

if ! command -v docker >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  log "installing docker.io from the Ubuntu archive"
  retry 5 15 apt-get -o DPkg::Lock::Timeout=300 update -q
  retry 5 15 apt-get -o DPkg::Lock::Timeout=300 install -y -q docker.io
fi

systemctl daemon-reload
systemctl enable docker.service >/dev/null
if ((changed == 1)) && systemctl is-active --quiet docker.service; then
  log "restarting docker to apply $DAEMON_JSON"
  systemctl restart docker.service
else
  systemctl start docker.service
fi
retry 30 2 docker info >/dev/null

bridge_mtu=$(docker network inspect bridge --format '{{index .Options "com.docker.network.driver.mtu"}}')
log "docker is running; default bridge MTU: \${bridge_mtu:-1500 (docker default)}"
`;
}
