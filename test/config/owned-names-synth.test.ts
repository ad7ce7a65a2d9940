/** ownedNames knows every name the stacks create: compared with the committed synth snapshot of every environment file. */
import * as fs from 'fs';
import * as path from 'path';
import { loadEnvironments } from '../../lib/config/load';
import { OwnedKind, namedEnvironment, ownedNames } from '../../lib/config/owned-names';
import { ENVIRONMENT_DIRS, ROOT } from '../app/synthesize';

const SNAPSHOT_DIR = path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'stacks');
const KIND: Readonly<Record<string, OwnedKind>> = {
  openstack_networking_network_v2: 'network',
  openstack_networking_subnet_v2: 'subnet',
  openstack_networking_router_v2: 'router',
  openstack_networking_port_v2: 'port',
  openstack_networking_secgroup_v2: 'security group',
  openstack_compute_instance_v2: 'server',
  openstack_compute_keypair_v2: 'key pair',
  openstack_blockstorage_volume_v3: 'volume',
  openstack_networking_floatingip_v2: 'floating IP',
  openstack_compute_servergroup_v2: 'server group',
  openstack_identity_application_credential_v3: 'application credential',
};
/** Named resource types that are not listed above must not exist (a new one needs an owned name). */
const UNNAMED = new Set(['openstack_networking_secgroup_rule_v2', 'openstack_networking_router_interface_v2', 'openstack_networking_floatingip_associate_v2']);

const previous = process.cwd();
const environments = ENVIRONMENT_DIRS.flatMap((dir) => {
  process.chdir(dir);
  try {
    return loadEnvironments(dir);
  } finally {
    process.chdir(previous);
  }
});

describe.each(environments.map((e) => [e.name, e] as const))('environment %s', (_name, env) => {
  test('every OpenStack name its stacks synthesize is one it owns, of the same kind', () => {
    const stacks = [env.managementStackName, ...env.clusters.map((c) => c.stackName)].filter((s) => fs.existsSync(path.join(SNAPSHOT_DIR, `${s}.tf.json`)));
    expect(stacks.length).toBeGreaterThan(0);
    const synthesized: string[] = [];
    for (const stack of stacks) {
      const json = JSON.parse(fs.readFileSync(path.join(SNAPSHOT_DIR, `${stack}.tf.json`), 'utf8'));
      for (const [type, resources] of Object.entries<Record<string, { name?: string; description?: string }>>(json.resource ?? {})) {
        if (!type.startsWith('openstack_') || UNNAMED.has(type)) continue;
        expect({ type, known: type in KIND }).toEqual({ type, known: true });
        for (const r of Object.values(resources)) synthesized.push(`${KIND[type]}: ${KIND[type] === 'floating IP' ? r.description : r.name}`);
      }
    }
    const owned = new Set(ownedNames(namedEnvironment(env)).map((n) => `${n.kind}: ${n.name}`));
    expect(synthesized.length).toBeGreaterThan(0);
    expect(synthesized.filter((n) => !owned.has(n))).toEqual([]);
  });
});
