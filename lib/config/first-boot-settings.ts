import { createHash } from 'crypto';
import type { EnvironmentConfig } from './resolve';

/**
 * Settings the management VM reads only when it first boots (cloud-init, its boot volume, its
 * placement). The running VM never picks up a change of them, and the server ignores them in the
 * plan, so that a newer image or an edited proxy cannot replace the VM, and with it the only copy
 * of every cluster's Cluster API state, by accident.
 */
export interface FirstBootSetting {
  /** Field path in the environment file. */
  readonly field: string;
  /** Short digest of the setting's value (the value itself may hold secrets, e.g. proxy credentials). */
  readonly digest: string;
  /**
   * Digest to compare with when the VM's record has no entry for the setting: the record was made
   * by a version that did not know the setting yet (a VM booted then had it unset), or the setting
   * was left out then (`versions` under the readiness gate).
   * @default - the current digest: a record without the entry does not warn
   */
  readonly unrecordedDigest?: string;
}

/** Key of the setting inside the first-boot record (a Terraform object key: letters, digits, `_`). */
export function firstBootSettingKey(field: string): string {
  return field.replace(/[^A-Za-z0-9]+/g, '_');
}

/** The first-boot settings of an environment's management VM, in a stable order. */
export function firstBootSettings(env: EnvironmentConfig): readonly FirstBootSetting[] {
  const spec = env.spec;
  const m = spec.management;
  // Settings added after the record was introduced: a VM recorded before booted with them unset.
  const unset = settingDigest(null);
  const values: Array<[string, unknown, string?]> = [
    ['management.image', m.image],
    ['management.bootVolumeSizeGb', m.bootVolumeSizeGb],
    ['management.bootVolumeType', m.bootVolumeType ?? null],
    ['availabilityZone', spec.availabilityZone ?? null],
    ['management.sshUsername', m.sshUsername],
    ['management.sshPublicKey', m.sshPublicKey?.trim() ?? null],
    ['management.kindClusterName', m.kindClusterName],
    ['network.mtu', spec.network.mtu],
    ['proxy', spec.proxy],
    ['registryMirrors', env.registryMirrors],
    // without the readiness gate the stack cannot reach the API to upgrade in place
    ...(m.waitForReady ? [] : [['versions', spec.versions] as [string, unknown]]),
    // `versions` there only names what the checksums are of (added later: left out so that records stay equal)
    ['management.providerManifests', m.providerManifests ? { ...m.providerManifests, versions: undefined } : null, unset],
    ['management.tools', m.tools ?? null, unset],
    // the certificates, not the file name: a renewed CA in the same file is a change
    ['management.trustedCaCertificateFile', env.managementTrustedCaPem ?? null, unset],
  ];
  return values.map(([field, value, unrecordedDigest]) => ({ field, digest: settingDigest(value), ...(unrecordedDigest ? { unrecordedDigest } : {}) }));
}

/** First 16 hex digits of the SHA-256 of the value's canonical JSON. */
export function settingDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What the plan warning and `validate` say about a changed first-boot setting. */
export function firstBootChangeMessage(field: string, environment: string): string {
  if (field === 'versions') {
    return `versions changed, but without the readiness gate (management.waitForReady: false) the stack does not reach the management API to upgrade the controllers: run capi-openstack management upgrade ${environment} (docs/day-2.md).`;
  }
  if (field === 'management.providerManifests') {
    return `management.providerManifests changed since the VM booted: the running VM keeps what it installed; a controller upgrade (a change of versions) installs the Cluster API providers and cert-manager from the new pins, and ORC changes only with a new VM (capi-openstack management replace ${environment}; docs/day-2.md).`;
  }
  return `${field} changed, but it applies to a new management VM only: the running VM keeps what it booted with and is not replaced. To move the management cluster onto a new VM with it, back it up and replace the VM (capi-openstack management replace ${environment}; docs/day-2.md).`;
}
