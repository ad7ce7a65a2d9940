/**
 * Separate projects are the production default: an environment whose management VM shares the
 * workload clusters' project is warned about (validate, footprint, synthesis), and so is one whose
 * two clouds.yaml entries cannot be compared, with what to set.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { EnvironmentConfig, parseEnvironment } from '../../lib/config';
import { memoryIo } from '../../lib/runtime/cli/io';
import { runCli } from '../../lib/runtime/cli/main';
import { withDeployAccess } from '../support/deploy-access';

const ROOT = path.resolve(__dirname, '..', '..');
const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');
const projectWarnings = (env: EnvironmentConfig) => env.warnings.filter((w) => w.path === 'management.cloud');

const SHARED =
  'the management VM and its boot volume (which holds the management cluster\'s CA key) share the project of cloud.name\'s entry "mycloud" with the workload clusters (demo): ' +
  'any node\'s credential, member of that project, can snapshot or clone that volume; set management.cloud to a clouds.yaml entry for another project of the cloud ' +
  '(docs/security.md, "The management VM in a project of its own")';

describe('no management.cloud: the management VM shares the workload clusters\' project', () => {
  test('the example as shipped is warned about at management.cloud, with the line of its management block', () => {
    const env = parseEnvironment(example, 'environments/example.yaml');
    const management = example.split('\n').findIndex((l) => l === 'management:') + 1;
    expect(projectWarnings(env)).toEqual([{ path: 'management.cloud', message: SHARED, line: expect.any(Number), column: expect.any(Number) }]);
    const [{ line }] = projectWarnings(env);
    expect(line! > management && line! <= management + 7).toBe(true);
  });

  test('many clusters are listed, cut after five', () => {
    const clusters = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((c, i) => `  ${c}:\n    apiAllowedCidrs: [198.51.100.0/24]\n    network: { nodeCidr: 10.${10 + i}.0.0/20 }\n`).join('');
    const env = parseEnvironment(withDeployAccess(`cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\nclusters:\n${clusters}`), 'environments/t.yaml');
    expect(projectWarnings(env)[0].message).toContain('with the workload clusters (a, b, c, d, e and 2 more)');
  });

  test('nothing to warn about without a workload cluster, or without a management VM of ours', () => {
    expect(projectWarnings(parseEnvironment(example, 'environments/t.yaml'))).toHaveLength(1);
    const none = example.replace(/\nclusters:\n[\s\S]*$/, '\n');
    expect(projectWarnings(parseEnvironment(none, 'environments/t.yaml'))).toEqual([]);
    const skipped = example.replace('    controlPlane:\n      count: 1', '    controlPlane:\n      count: 0');
    expect(projectWarnings(parseEnvironment(skipped, 'environments/t.yaml'))).toEqual([]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-project-'));
    fs.writeFileSync(path.join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    const byo = `${example}existingManagementCluster:\n  kubeconfigFile: kubeconfig\n  egressCidr: 203.0.113.0/24\n`;
    expect(projectWarnings(parseEnvironment(byo, path.join(dir, 'byo.yaml')))).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('validate prints it as a warning line (file, line, field) and still exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-project-'));
    fs.mkdirSync(path.join(dir, 'environments'));
    fs.writeFileSync(path.join(dir, 'environments', 'example.yaml'), example);
    const io = memoryIo(dir);
    expect(await runCli(['validate'], io)).toBe(0);
    expect(io.stderr).toEqual([expect.stringMatching(new RegExp(`^warning: .*example\\.yaml:\\d+:\\d+: management\\.cloud: the management VM and its boot volume .* set management\\.cloud to a clouds\\.yaml entry for another project`))]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('synthesis prints it too', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-project-'));
    fs.writeFileSync(path.join(dir, 'example.yaml'), example);
    const lines: string[] = [];
    new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir: path.join(dir, 'out') }, onWarning: (l) => lines.push(l) });
    expect(lines).toEqual([expect.stringMatching(/^warning: .*example\.yaml:\d+:\d+: management\.cloud: the management VM and its boot volume/)]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('management.cloud set: warned when the two entries cannot be compared', () => {
  const password = (project: string) => `    auth: {auth_url: "https://keystone.test:5000/v3", username: op, ${project}}\n    region_name: RegionOne\n`;
  const CLOUDS =
    'clouds:\n' +
    `  workloads:\n${password('project_name: workloads, project_domain_name: Default')}` +
    `  management:\n${password('project_name: management, project_domain_name: Default')}` +
    `  management-by-id:\n${password('project_id: 0f3e1c')}` +
    `  workloads-lower:\n${password('project_name: workloads, project_domain_id: default')}` +
    '  management-appcred:\n    auth_type: v3applicationcredential\n    auth: {auth_url: "https://keystone.test:5000/v3", application_credential_id: abc, application_credential_secret: s}\n';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-project-clouds-'));
  const clouds = path.join(dir, 'clouds.yaml');
  fs.writeFileSync(clouds, CLOUDS);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const env = (cloud: string, management: string) =>
    parseEnvironment(
      withDeployAccess(`cloud:\n  name: ${cloud}\n  cloudsFile: clouds.yaml\nmanagement:\n  cloud: ${management}\nclusters:\n  web:\n    apiAllowedCidrs: [198.51.100.0/24]\n`),
      path.join(dir, 'lab.yaml'),
    );
  const REMEDY = ' (docs/security.md, "The management VM in a project of its own")';

  test('an entry naming no project (an application credential): which entry, and what to set; none for two named projects', () => {
    expect(projectWarnings(env('workloads', 'management'))).toEqual([]);
    expect(projectWarnings(env('workloads', 'management-appcred'))).toEqual([
      {
        path: 'management.cloud',
        line: 6, // `  cloud:` (withDeployAccess puts apiAllowedCidrs above it)
        column: 10,
        message:
          `cannot tell whether "management-appcred" logs in to another project than cloud.name's entry "workloads": "management-appcred" in ${clouds} names no project; ` +
          'name it in both entries (auth.project_id, or auth.project_name with auth.project_domain_name); an application credential entry cannot name one: then check in Keystone that the two credentials belong to different projects' +
          REMEDY,
      },
    ]);
  });

  test('one project by id, the other by name', () => {
    expect(projectWarnings(env('workloads', 'management-by-id'))[0].message).toBe(
      'cannot tell whether "management-by-id" logs in to another project than cloud.name\'s entry "workloads": "workloads" by name (workloads@Default) and "management-by-id" by id (0f3e1c) name their projects in different ways; ' +
        'name both the same way: auth.project_id in both, or auth.project_name with auth.project_domain_name in both' +
        REMEDY,
    );
  });

  test('the same project name in the default domain written as id and as name', () => {
    expect(projectWarnings(env('workloads-lower', 'workloads'))[0].message).toBe(
      'cannot tell whether "workloads" logs in to another project than cloud.name\'s entry "workloads-lower": both name project "workloads", in domains "default" and "Default", which may be one domain written as id and as name; ' +
        'write the domain the same way in both (auth.project_domain_id in both, or auth.project_domain_name in both)' +
        REMEDY,
    );
  });

  test('cloud.name\'s entry missing where the management entry is found', () => {
    expect(projectWarnings(env('elsewhere', 'management'))[0].message).toBe(
      'cannot tell whether "management" logs in to another project than cloud.name\'s entry "elsewhere": no entry "elsewhere" was found in clouds.yaml at synthesis; ' +
        'add it where the stacks are synthesized, naming its project (auth.project_id, or auth.project_name with auth.project_domain_name)' +
        REMEDY,
    );
  });
});
