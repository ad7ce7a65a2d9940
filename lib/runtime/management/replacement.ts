/**
 * A deliberate replacement of the management VM (the plan never replaces it on its own): the
 * addresses Terraform must replace, read from the synthesized management stack.
 */
import * as fs from 'fs';
import * as path from 'path';
import { BackupError } from './backup-archive';

/** `-replace` addresses of the management server and its boot volume in the stack's cdk.tf.json. */
export function replacementAddresses(stackDir: string, stack: string): string[] {
  const file = path.join(stackDir, 'cdk.tf.json');
  if (!fs.existsSync(file)) throw new BackupError(`no synthesized stack ${stack} (${file} does not exist): run \`cdktf synth\` in the project first`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { resource?: Record<string, Record<string, unknown>> };
  const of = (type: string) => Object.keys(json.resource?.[type] ?? {}).map((name) => `${type}.${name}`);
  const servers = of('openstack_compute_instance_v2');
  if (servers.length !== 1) throw new BackupError(`stack ${stack} has ${servers.length} servers (openstack_compute_instance_v2): expected the one management VM`);
  // the boot volume holds the old image's disk: a new VM starts from the newest image
  return [...servers, ...of('openstack_blockstorage_volume_v3')];
}
