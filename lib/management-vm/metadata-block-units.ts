import { systemdSpecifierEscape } from '../config/systemd-text';
import { BOOTSTRAP_PATHS, METADATA_BLOCK_UNITS } from './paths';
import { METADATA_BLOCK_SH } from './scripts/metadata-block-sh';

/**
 * systemd units that keep the metadata block in place across reboots and docker restarts:
 * the early unit runs before docker (docker requires it, so docker does not start without the
 * block), the DOCKER-USER unit runs after docker and again whenever docker restarts (PartOf).
 */
export function renderMetadataBlockUnits(): { name: string; content: string }[] {
  const script = systemdSpecifierEscape(`${BOOTSTRAP_PATHS.scriptDir}/${METADATA_BLOCK_SH}`);
  return [
    {
      name: METADATA_BLOCK_UNITS.early,
      content: [
        '[Unit]',
        'Description=Block containers from the OpenStack metadata service (raw table, before docker)',
        'Before=docker.service',
        '',
        '[Service]',
        'Type=oneshot',
        'RemainAfterExit=yes',
        `ExecStart=${script} early`,
        '',
        '[Install]',
        'RequiredBy=docker.service',
        'WantedBy=multi-user.target',
        '',
      ].join('\n'),
    },
    {
      name: METADATA_BLOCK_UNITS.dockerUser,
      content: [
        '[Unit]',
        'Description=Block containers from the OpenStack metadata service (DOCKER-USER chain)',
        'After=docker.service',
        'Requires=docker.service',
        'PartOf=docker.service',
        '',
        '[Service]',
        'Type=oneshot',
        'RemainAfterExit=yes',
        `ExecStart=${script} docker-user`,
        '',
        '[Install]',
        'WantedBy=docker.service',
        '',
      ].join('\n'),
    },
  ];
}
