/**
 * The metadata block of the workload nodes. Cluster API's kubeadm bootstrap writes the cluster's
 * CA key, the service-account key and the etcd CA key into a control-plane machine's user data,
 * which the OpenStack metadata service serves to anything on the node that asks. The block keeps
 * pods (whatever CNI interface their traffic arrives on) and the host's non-root processes (a
 * hostNetwork pod running as non-root) away from it; root on the node (cloud-init, kubelet, the
 * Cinder CSI node plugin) keeps access. The rules are the management VM's (config/metadata-block-rules.ts),
 * matched on "not from the host's own stack" instead of docker's bridge names.
 *
 * A oneshot unit applies them on every boot before containerd and kubelet, which require it: the
 * first boot enables and starts it before kubeadm (whose init/join starts kubelet), and a node
 * whose block fails does not run pods.
 */
import { METADATA_ADDRESS, METADATA_ADDRESS_V6, RULE_SHELL_FUNCTIONS, arrivingTrafficDropRule, nonRootOutputRejectRule } from '../config/metadata-block-rules';
import { systemdSpecifierEscape } from '../config/systemd-text';
import { NodeFile, nodeFile } from './node-files';

/** The script on the node; `apply` installs the rules, `verify` fails unless every one is in place. */
export const NODE_METADATA_BLOCK_SCRIPT = '/usr/local/sbin/capi-metadata-block';

/** The unit that runs `apply` on every boot. */
export const NODE_METADATA_BLOCK_UNIT = 'capi-metadata-block.service';

/** The units that must not start before the block (and do not start without it). */
const GUARDED_UNITS = 'containerd.service kubelet.service';

export function renderNodeMetadataBlockScript(): string {
  return `#!/usr/bin/env bash
# Managed by capi-openstack-cdktf: keeps pods and non-root processes away from the OpenStack
# metadata service, whose user data carries the cluster's CA keys on control-plane nodes.
# Root on the node (cloud-init, kubelet, the Cinder CSI node plugin) keeps access.
# Usage: $0 apply|verify
set -euo pipefail

log() { echo "capi-metadata-block: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

readonly METADATA4=${METADATA_ADDRESS}/32
readonly METADATA6=${METADATA_ADDRESS_V6}/128

# One rule per line: command table chain match... target. Pods' traffic arrives on an interface
# (raw PREROUTING, before any CNI rule); the host's own leaves through OUTPUT, root only.
rules() {
  echo "${arrivingTrafficDropRule('iptables', '$METADATA4')}"
  echo "${nonRootOutputRejectRule('iptables', '$METADATA4')}"
  # a kernel without IPv6 (ipv6.disable=1) has no IPv6 traffic to stop
  if [ -e /proc/net/if_inet6 ]; then
    echo "${arrivingTrafficDropRule('ip6tables', '$METADATA6')}"
    echo "${nonRootOutputRejectRule('ip6tables', '$METADATA6')}"
  fi
}

${RULE_SHELL_FUNCTIONS}
case \${1:-} in
  apply)
    rules | ensure
    ;;
  verify)
    rules | check
    log "pods and non-root processes cannot reach $METADATA4 or $METADATA6 (raw PREROUTING and OUTPUT rules in place)"
    ;;
  *)
    die "usage: $0 apply|verify"
    ;;
esac
`;
}

export function renderNodeMetadataBlockUnit(): string {
  return `# Managed by capi-openstack-cdktf
[Unit]
Description=Block pods and non-root processes from the OpenStack metadata service
Before=${GUARDED_UNITS}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=${systemdSpecifierEscape(NODE_METADATA_BLOCK_SCRIPT)} apply

[Install]
RequiredBy=${GUARDED_UNITS}
WantedBy=multi-user.target
`;
}

export function nodeMetadataBlockFiles(): NodeFile[] {
  return [nodeFile(NODE_METADATA_BLOCK_SCRIPT, renderNodeMetadataBlockScript(), '0750'), nodeFile(`/etc/systemd/system/${NODE_METADATA_BLOCK_UNIT}`, renderNodeMetadataBlockUnit())];
}

/** Before kubeadm, first of all: the block is in place before kubelet can start a pod. */
export const NODE_METADATA_BLOCK_PRE_COMMANDS: readonly string[] = ['systemctl daemon-reload', `systemctl enable --now ${NODE_METADATA_BLOCK_UNIT}`];
