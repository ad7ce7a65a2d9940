/**
 * etcd on the control-plane nodes: tuning for cloud disks and networks, a daily snapshot + defrag,
 * and the optional barrier-less mount (old `etcd_unsafe_fs`).
 */
import { systemdSpecifierEscape } from '../config/systemd-text';
import { NodeFile, nodeFile } from './node-files';

/**
 * etcd flags (kubeadm `etcd.local.extraArgs`). Heartbeat/election are raised for cloud network
 * latency (etcd defaults 100/1000 ms), snapshots are taken less often, history is compacted every 8h
 * and the backend quota is 8 GiB (etcd's documented maximum recommendation) instead of 2 GiB.
 */
export const ETCD_EXTRA_ARGS: ReadonlyArray<{ readonly name: string; readonly value: string }> = [
  { name: 'heartbeat-interval', value: '250' },
  { name: 'election-timeout', value: '2500' },
  { name: 'snapshot-count', value: '6400' },
  { name: 'auto-compaction-mode', value: 'periodic' },
  { name: 'auto-compaction-retention', value: '8h' },
  { name: 'quota-backend-bytes', value: String(8 * 1024 * 1024 * 1024) },
];

export const ETCD_MAINTENANCE_SCRIPT = '/usr/local/sbin/etcd-maintenance.sh';
export const ETCD_BACKUP_DIR = '/var/backups/etcd';
/** Snapshots kept per node. */
export const ETCD_BACKUPS_KEPT = 7;

const maintenanceScript = `#!/bin/bash
# Managed by capi-openstack-cdktf: daily snapshot of the local etcd member, then defragmentation.
# Runs etcdctl inside the running etcd static pod container (the node image has no etcdctl).
set -euo pipefail
backup_dir=${ETCD_BACKUP_DIR}
keep=${ETCD_BACKUPS_KEPT}
crictl=(crictl --runtime-endpoint unix:///run/containerd/containerd.sock)
cid=$("\${crictl[@]}" ps --name '^etcd$' --state running -q | head -n 1)
if [ -z "$cid" ]; then
  echo "etcd-maintenance: no running etcd container on this node, nothing to do"
  exit 0
fi
etcdctl() {
  "\${crictl[@]}" exec "$cid" etcdctl --endpoints=https://127.0.0.1:2379 \\
    --cacert=/etc/kubernetes/pki/etcd/ca.crt \\
    --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt \\
    --key=/etc/kubernetes/pki/etcd/healthcheck-client.key "$@"
}
install -d -m 0700 "$backup_dir"
# /var/lib/etcd is the same host directory inside the container
tmp=/var/lib/etcd/maintenance-snapshot.db
rm -f "$tmp" "$tmp.part"
echo "etcd-maintenance: taking snapshot"
etcdctl snapshot save "$tmp"
target="$backup_dir/etcd-$(date -u +%Y%m%dT%H%M%SZ).db"
mv "$tmp" "$target"
chmod 0600 "$target"
echo "etcd-maintenance: saved $target"
# keep the newest $keep snapshots
find "$backup_dir" -maxdepth 1 -name 'etcd-*.db' -type f -printf '%T@ %p\\n' | sort -rn | tail -n +$((keep + 1)) | cut -d' ' -f2- | xargs -r rm -f
echo "etcd-maintenance: defragmenting the local member"
etcdctl defrag
etcdctl endpoint status -w table
`;

const maintenanceService = `# Managed by capi-openstack-cdktf
[Unit]
Description=etcd snapshot and defragmentation
After=kubelet.service

[Service]
Type=oneshot
ExecStart=${systemdSpecifierEscape(ETCD_MAINTENANCE_SCRIPT)}
`;

// RandomizedDelaySec spreads the members over 2 hours so they are not all defragmented at once.
const maintenanceTimer = `# Managed by capi-openstack-cdktf
[Unit]
Description=Daily etcd snapshot and defragmentation

[Timer]
OnCalendar=*-*-* 02:30:00
RandomizedDelaySec=2h
Persistent=true

[Install]
WantedBy=timers.target
`;

export function etcdMaintenanceFiles(): NodeFile[] {
  return [
    nodeFile(ETCD_MAINTENANCE_SCRIPT, maintenanceScript, '0750'),
    nodeFile('/etc/systemd/system/etcd-maintenance.service', maintenanceService),
    nodeFile('/etc/systemd/system/etcd-maintenance.timer', maintenanceTimer),
  ];
}

/** After kubeadm: start the timer (etcd exists from then on). */
export const ETCD_MAINTENANCE_POST_COMMANDS: readonly string[] = ['systemctl daemon-reload', 'systemctl enable --now etcd-maintenance.timer'];

const ETCD_UNSAFE_FS_SCRIPT = '/usr/local/sbin/etcd-unsafe-fs.sh';

const unsafeFsScript = `#!/bin/bash
# Managed by capi-openstack-cdktf (etcdUnsafeFilesystem: true): mount the file system holding
# /var/lib/etcd without write barriers. Faster fsync for etcd; data may be lost on power failure.
set -euo pipefail
mkdir -p /var/lib/etcd
target=$(findmnt -n -o TARGET --target /var/lib/etcd)
fstype=$(findmnt -n -o FSTYPE --target /var/lib/etcd)
case "$fstype" in
  ext3|ext4)
    mount -o remount,nobarrier "$target"
    echo "etcd-unsafe-fs: $target ($fstype) remounted with nobarrier"
    ;;
  *)
    echo "etcd-unsafe-fs: $target is $fstype, which has no barrier option; left unchanged"
    ;;
esac
`;

const unsafeFsService = `# Managed by capi-openstack-cdktf
[Unit]
Description=Mount the etcd file system without write barriers
DefaultDependencies=no
After=local-fs.target
Before=kubelet.service containerd.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=${systemdSpecifierEscape(ETCD_UNSAFE_FS_SCRIPT)}

[Install]
WantedBy=multi-user.target
`;

/** nobarrier mount, re-applied on every boot by a oneshot unit ordered before kubelet. */
export function etcdUnsafeFsFiles(): NodeFile[] {
  return [nodeFile(ETCD_UNSAFE_FS_SCRIPT, unsafeFsScript, '0750'), nodeFile('/etc/systemd/system/etcd-unsafe-fs.service', unsafeFsService)];
}

export const ETCD_UNSAFE_FS_PRE_COMMANDS: readonly string[] = ['systemctl daemon-reload', 'systemctl enable --now etcd-unsafe-fs.service'];
