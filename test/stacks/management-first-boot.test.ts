import { firstBootSettings } from '../../lib/config/first-boot-settings';
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
      const [, key, digest] = /input\.(\w+) == "([0-9a-f]{16})"\)\}$/.exec(a.condition)!;
      expect(record.input[key]).toBe(digest);
    }
  });

  test('the record holds digests, not values: a proxy password never reaches it', () => {
    const json = management('proxy:\n  httpProxy: http://user:s3cret@proxy.example:3128\n');
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
