/**
 * `management replace` applies a saved plan only when it replaces the management VM and nothing
 * else: the addresses come from the synthesized stack (the committed snapshot of the full example),
 * the check reads the plan as `terraform show -json` prints it.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { changesBeyondReplacement, replacementTargets } from '../../../lib/runtime/management/replacement';

const SNAPSHOT = path.join(__dirname, '..', '..', 'fixtures', 'synth-snapshot', 'stacks', 'full-management.tf.json');
const SERVER = 'openstack_compute_instance_v2.Server_Instance_B749C72C';
const VOLUME = 'openstack_blockstorage_volume_v3.Server_BootVolume_6D4D501F';
const RECORD = 'terraform_data.FirstBoot_Record_5B234F0E';
const GATE = 'terraform_data.Ready_Wait_6366C864';

function stackDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replace-stack-'));
  fs.copyFileSync(SNAPSHOT, path.join(dir, 'cdk.tf.json'));
  return dir;
}

const change = (address: string, actions: string[], mode = 'managed') => ({ address, mode, type: address.split('.')[0], name: address.split('.')[1], change: { actions } });
const plan = (...changes: object[]) => JSON.stringify({ format_version: '1.2', resource_changes: changes });

describe('management replace: what it replaces, and what else the plan may change', () => {
  test('the server and its boot volume are replaced; the records keyed by the server id alone (first-boot record, readiness gate) follow; the controller upgrade does not', () => {
    const t = replacementTargets(stackDir(), 'full-management');
    expect(t.replace).toEqual([SERVER, VOLUME]);
    expect([...t.allowed].sort()).toEqual([SERVER, VOLUME, RECORD, GATE].sort());
    expect(t.allowed).not.toContain('terraform_data.ControllerUpgrade_787C9F06');
  });

  test('a plan that replaces exactly those passes; data sources read and unchanged resources do not count', () => {
    const t = replacementTargets(stackDir(), 'full-management');
    const json = plan(
      change(SERVER, ['delete', 'create']),
      change(VOLUME, ['delete', 'create']),
      change(RECORD, ['create', 'delete']),
      change(GATE, ['delete', 'create']),
      change('openstack_networking_port_v2.Endpoint_Port_B9DE27AA', ['no-op']),
      change('data.openstack_images_image_v2.Cloud_Image_30A60AE0', ['read'], 'data'),
    );
    expect(changesBeyondReplacement(json, t.allowed)).toEqual([]);
  });

  test('any other pending change (a new rule, a subnet update, the controller upgrade) is named with its actions', () => {
    const t = replacementTargets(stackDir(), 'full-management');
    const json = plan(
      change(SERVER, ['delete', 'create']),
      change('openstack_networking_secgroup_rule_v2.ManagementSecurityGroup_ingress-IPv4-tcp-22-203_0_113_0_24_0A1B2C3D', ['create']),
      change('openstack_networking_subnet_v2.Network_Subnet_8D9C3287', ['update']),
      change('terraform_data.ControllerUpgrade_787C9F06', ['delete', 'create']),
    );
    expect(changesBeyondReplacement(json, t.allowed)).toEqual([
      'openstack_networking_secgroup_rule_v2.ManagementSecurityGroup_ingress-IPv4-tcp-22-203_0_113_0_24_0A1B2C3D (create)',
      'openstack_networking_subnet_v2.Network_Subnet_8D9C3287 (update)',
      'terraform_data.ControllerUpgrade_787C9F06 (delete+create)',
    ]);
  });

  test('output that is not a plan is an error, not a pass', () => {
    expect(() => changesBeyondReplacement('Error: no plan', [SERVER])).toThrow('terraform show -json of the replacement plan is not JSON');
  });
});
