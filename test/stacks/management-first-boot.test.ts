import { firstBootSettings, settingDigest } from '../../lib/config/first-boot-settings';
import { MANAGEMENT_BOOT_VOLUME_FIRST_BOOT_ATTRIBUTES, MANAGEMENT_SERVER_FIRST_BOOT_ATTRIBUTES } from '../../lib/openstack/management-server';
import { environment, environmentYaml, resourcesOf, synthEnvironment } from './support';

/** Top-level arguments of `after` that differ from `before` (metadata comments left out). */
function changedArguments(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((k) => k !== '//'));
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

const management = (extra = '') => synthEnvironment(environment(environmentYaml(extra))).json['unit-management'];
const server = (json: any) => resourcesOf(json, 'openstack_compute_instance_v2')[0];
const volume = (json: any) => resourcesOf(json, 'openstack_blockstorage_volume_v3')[0];

describe('the management VM survives changes of what it reads only at first boot', () => {
  const base = management();

  test('server and boot volume ignore their create-only arguments', () => {
    expect(server(base).lifecycle.ignore_changes).toEqual(['user_data', 'image_id', 'image_name', 'block_device', 'key_pair', 'availability_zone']);
    expect(volume(base).lifecycle.ignore_changes).toEqual(['image_id', 'size', 'volume_type', 'availability_zone']);
  });

  test.each([
    ['versions', 'versions:\n  capo: v0.14.6\n'],
    ['proxy', 'proxy:\n  httpProxy: http://proxy.example:3128\n'],
    ['registry mirrors', 'registryMirrors:\n  - registry: docker.io\n    endpoints: [https://mirror.example]\n'],
    ['image name, volume type and zone', 'availabilityZone: az2\nmanagement:\n  image: Debian 12\n  bootVolumeType: fast\n  bootVolumeSizeGb: 60\n'],
    ['the VM\'s tools', `management:\n  tools:\n    baseUrl: https://mirror.example/tools\n    kindNodeImage: registry.example/kind/node:v1.36.1@sha256:${'a'.repeat(64)}\n`],
    ['SSH key and user', 'management:\n  sshUsername: ops\n  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWkS3dU0W5yq7Lx5lVb7kN0Uo3J1n9oQ4mYwq2Q7f1x op@laptop\n'],
  ])('a change of %s touches only ignored arguments of the server and the boot volume', (_what, extra) => {
    const changed = management(extra);
    const serverChanges = changedArguments(server(base), server(changed));
    const volumeChanges = changedArguments(volume(base), volume(changed));
    // the change does reach the VM's inputs (else this test proves nothing)…
    expect([...serverChanges, ...volumeChanges].length).toBeGreaterThan(0);
    // …and every argument it changes is one Terraform ignores (metadata and flavor update in place)
    expect(serverChanges.filter((a) => !(MANAGEMENT_SERVER_FIRST_BOOT_ATTRIBUTES as readonly string[]).includes(a))).toEqual([]);
    expect(volumeChanges.filter((a) => !(MANAGEMENT_BOOT_VOLUME_FIRST_BOOT_ATTRIBUTES as readonly string[]).includes(a))).toEqual([]);
  });

  test('the image is looked up anew in every plan, but only the first-boot record compares it', () => {
    expect(volume(base).image_id).toMatch(/^\$\{data\.openstack_images_image_v2\.[^.]+\.id\}$/);
    const [record] = resourcesOf(base, 'terraform_data').filter((r) => r.input?.image_id);
    expect(record.input.image_id).toBe(volume(base).image_id);
    expect(record.lifecycle.ignore_changes).toEqual(['input']);
    expect(record.triggers_replace.instance).toMatch(/^\$\{openstack_compute_instance_v2\.[^.]+\.id\}$/);
  });

  test('a check block warns, setting by setting, when what the VM booted with differs', () => {
    const [check] = Object.values(base.check) as any[];
    const messages = check.assert.map((a: any) => a.error_message as string);
    expect(messages[0]).toMatch(/^A newer image named "Ubuntu 22\.04" exists, but it applies to a new management VM only/);
    for (const field of ['management.image', 'proxy', 'registryMirrors', 'network.mtu', 'management.sshPublicKey']) {
      expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^${field.replace('.', '\\.')} changed, but it applies to a new management VM only.*capi-openstack management replace unit`)));
    }
    const [record] = resourcesOf(base, 'terraform_data').filter((r) => r.input?.image_id);
    for (const a of check.assert.slice(1)) {
      // try(): a record without the key (made before the setting existed) compares its fallback
      const [, key, fallback, digest] = /try\(terraform_data\.\w+\.input\.(\w+), "([0-9a-f]{16})"\) == "([0-9a-f]{16})"\)\}$/.exec(a.condition)!;
      expect(record.input[key]).toBe(digest);
      expect(fallback).toBe(['management_tools', 'management_providerManifests', 'management_trustedCaCertificateFile'].includes(key) ? settingDigest(null) : digest);
    }
  });

  test('a change of versions replaces only the controller upgrade, which runs after the readiness gate; the plan names old and new', () => {
    const changed = management('versions:\n  clusterApi: v1.13.6\n');
    const upgrade = (json: any) => resourcesOf(json, 'terraform_data').find((r) => JSON.stringify(r.provisioner ?? []).includes('upgrade-management'));
    expect(upgrade(base).triggers_replace).toEqual({ clusterApi: 'v1.14.2', capo: 'v0.14.7', caaph: 'v0.6.4' });
    expect(upgrade(changed).triggers_replace.clusterApi).toBe('v1.13.6');
    expect(upgrade(base).depends_on).toEqual([expect.stringMatching(/^terraform_data\.Ready_Wait/)]);
    const env = upgrade(changed).provisioner[0]['local-exec'].environment;
    expect(env).toMatchObject({ UPGRADE_ENVIRONMENT: 'unit', UPGRADE_CLUSTER_API: 'v1.13.6', UPGRADE_CAPO: 'v0.14.7', UPGRADE_CAAPH: 'v0.6.4' });
    expect(env.UPGRADE_BACKUP_DIR).toMatch(/backups$/);
    // no secret of the operator in the synthesized JSON: the backup key comes from the deploy's environment
    expect(JSON.stringify(changed)).not.toContain('CAPI_OPENSTACK_BACKUP_KEY');
    // and no warning about versions: they are applied, not left for a new VM
    expect(JSON.stringify(Object.values(changed.check))).not.toContain('versions changed');
  });

  test('without the readiness gate there is no in-place upgrade: a versions change warns and names the command', () => {
    const off = management('management:\n  waitForReady: false\n');
    expect(resourcesOf(off, 'terraform_data').filter((r) => JSON.stringify(r.provisioner ?? []).includes('upgrade-management'))).toEqual([]);
    expect(JSON.stringify(Object.values(off.check))).toContain('versions changed, but without the readiness gate (management.waitForReady: false) the stack does not reach the management API to upgrade the controllers: run capi-openstack management upgrade unit');
  });

  test('the record holds digests, not values: the proxy URL never reaches it', () => {
    const json = management('proxy:\n  httpProxy: http://s3cret.proxy.example:3128\n');
    const [record] = resourcesOf(json, 'terraform_data').filter((r) => r.input?.image_id);
    expect(JSON.stringify(record)).not.toContain('s3cret');
    expect(JSON.stringify(json.check)).not.toContain('s3cret');
  });

  test('each setting has its own digest: one change moves exactly one', () => {
    const digests = (extra: string) => Object.fromEntries(firstBootSettings(environment(environmentYaml(extra))).map((s) => [s.field, s.digest]));
    const before = digests('');
    const after = digests('proxy:\n  httpProxy: http://proxy.example:3128\n');
    expect(Object.keys(before).filter((f) => before[f] !== after[f])).toEqual(['proxy']);
  });
});
