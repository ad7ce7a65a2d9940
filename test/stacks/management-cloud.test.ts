/**
 * management.cloud: the management stack logs in with a second clouds.yaml entry (another
 * project), the workload stacks and their credentials stay with cloud.name.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseEnvironment } from '../../lib/config/load';
import { environmentYaml, resourcesOf, synthEnvironment } from './support';

const CLOUDS = `clouds:
  testcloud:
    auth: {auth_url: "https://keystone.test:5000/v3", username: op, project_name: workloads, project_domain_name: Default}
    region_name: RegionOne
  testcloud-mgmt:
    auth: {auth_url: "https://keystone.test:5000/v3", username: op, project_name: management, project_domain_name: Default}
    region_name: RegionOne
  same-project:
    auth: {auth_url: "https://keystone.test:5000/v3", username: other, project_name: workloads}
`;

function withClouds(managementCloud: string | undefined, clusters = true) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-cloud-'));
  fs.writeFileSync(path.join(dir, 'clouds.yaml'), CLOUDS);
  const text = environmentYaml(
    (managementCloud ? `management:\n  cloud: ${managementCloud}\n` : '') + (clusters ? 'clusters:\n  web:\n    kubernetesVersion: v1.33.x\n' : ''),
  ).replace('  region: RegionOne\n', '  region: RegionOne\n  cloudsFile: clouds.yaml\n');
  return { dir, file: path.join(dir, 'unit.yaml'), text };
}

function parsed(managementCloud: string | undefined) {
  const { dir, file, text } = withClouds(managementCloud);
  try {
    return parseEnvironment(text, file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function problem(managementCloud: string, clouds = CLOUDS): string {
  const { dir, file, text } = withClouds(managementCloud);
  fs.writeFileSync(path.join(dir, 'clouds.yaml'), clouds);
  try {
    parseEnvironment(text, file);
  } catch (e) {
    return (e as Error).message;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  throw new Error('expected an error');
}

describe('management.cloud: the management VM in a project of its own', () => {
  test('the management stack logs in with that entry; the workload stacks and their credentials with cloud.name', () => {
    const { json } = synthEnvironment(parsed('testcloud-mgmt'));
    expect(json['unit-management'].provider.openstack).toEqual([{ cloud: 'testcloud-mgmt', region: 'RegionOne', endpoint_type: 'public' }]);
    const web = json['unit-web'];
    expect(web.provider.openstack).toEqual([{ cloud: 'testcloud', region: 'RegionOne', endpoint_type: 'public' }]);
    expect(resourcesOf(web, 'openstack_identity_application_credential_v3')).toHaveLength(1);
    expect(resourcesOf(json['unit-management'], 'openstack_compute_instance_v2')).toHaveLength(1);
    // the node-access group lives in the management project, where CAPO (cluster project) cannot find it by name
    expect(JSON.stringify(web)).not.toContain('node-access');
  });

  test('without it both log in with cloud.name, and the nodes get the node-access group as before', () => {
    const { json } = synthEnvironment(parsed(undefined));
    expect(json['unit-management'].provider.openstack[0].cloud).toBe('testcloud');
    expect(json['unit-web'].provider.openstack[0].cloud).toBe('testcloud');
    expect(JSON.stringify(json['unit-web'])).toContain('capi-unit-node-access');
  });

  test('a missing entry is refused, naming the environment file, the field and the clouds.yaml', () => {
    const message = problem('nowhere');
    expect(message).toMatch(/unit\.yaml:\d+:\d+: management\.cloud: expected an entry "nowhere" in \/\S+\/clouds\.yaml \(cloud\.cloudsFile\), found none/);
  });

  test('the entry of cloud.name, or one logging in to the same project, is refused', () => {
    expect(problem('testcloud')).toContain('management.cloud: expected a clouds.yaml entry other than cloud.name ("testcloud")');
    expect(problem('same-project')).toMatch(/management\.cloud: expected an entry for another project than cloud\.name's, found "same-project" in \S+clouds\.yaml logging in to the same project \(workloads@Default\)/);
  });

  test('a bad value in that entry is reported at management.cloud', () => {
    const broken = CLOUDS.replace('project_name: management, project_domain_name: Default}\n    region_name: RegionOne', 'project_name: management}\n    region_name: "a\\nb"');
    expect(problem('testcloud-mgmt', broken)).toContain('management.cloud: expected region_name of "testcloud-mgmt"');
  });
});
