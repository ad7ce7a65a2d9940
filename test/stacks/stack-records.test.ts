/**
 * ManagementCluster and WorkloadCluster declare the outputs the operator commands read, in any
 * stack, and record them (with environment, role and cluster) in the stack's JSON, where the
 * commands find them whatever the stack ids (lib/config/stack-records.ts).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdktf';
import { ManagementStack, WorkloadClusterStack } from '../../lib';
import { MANAGEMENT_OUTPUTS, readStackRecords, STACK_RECORDS_KEY, WORKLOAD_OUTPUTS } from '../../lib/config/stack-records';
import { synthTeamApp, teamEnvironment, TEAM_MANAGEMENT_STACK, TEAM_WORKLOAD_STACK } from '../support/team-composition';
import { environment, environmentYaml } from './support';

describe('the outputs and records of the cluster constructs', () => {
  const env = teamEnvironment();
  const { json } = synthTeamApp(env);
  const platform = json[TEAM_MANAGEMENT_STACK];
  const apps = json[TEAM_WORKLOAD_STACK];

  test("a ManagementCluster in a team's own stack declares the outputs the commands read; those that carry credentials are sensitive", () => {
    const records = readStackRecords(platform, 'platform-capi/cdk.tf.json')!;
    expect(records.clusters).toEqual([{ role: 'management', environment: 'acme', path: 'platform-capi/Management', outputs: expect.any(Object) }]);
    const names = records.clusters[0].outputs as Record<string, string>;
    expect(Object.keys(names).sort()).toEqual([...MANAGEMENT_OUTPUTS].sort());
    // every recorded name is an output of the stack
    for (const n of MANAGEMENT_OUTPUTS) expect([n, platform.output[names[n]] !== undefined]).toEqual([n, true]);
    const sensitive = MANAGEMENT_OUTPUTS.filter((n) => platform.output[names[n]].sensitive === true).sort();
    expect(sensitive).toEqual(['admin_certificate', 'admin_key', 'ca_certificate', 'kubeconfig']);
    expect(platform.output[names.kubeconfig].value).toContain('client-key-data');
    expect(platform.output[names.api_endpoint].value).toMatch(/^https:\/\/\$\{openstack_networking_floatingip_v2\.\S+\.address\}:6443$/);
  });

  test('two WorkloadClusters in one stack: outputs of their own for each, both recorded with their cluster', () => {
    const records = readStackRecords(apps, 'apps/cdk.tf.json')!;
    expect(records.clusters.map((c) => [c.role, c.environment, c.role === 'workload' ? c.cluster : '', c.path])).toEqual([
      ['workload', 'acme', 'web', 'apps/Cluster-web'],
      ['workload', 'acme', 'api', 'apps/Cluster-api'],
    ]);
    const [web, api] = records.clusters.map((c) => c.outputs as Record<string, string>);
    for (const n of WORKLOAD_OUTPUTS) expect(web[n]).not.toBe(api[n]);
    expect(apps.output[web.kubeconfig_secret].value).toEqual({ namespace: 'team-acme-web', name: 'web-kubeconfig', key: 'value' });
    expect(apps.output[api.kubeconfig_secret].value).toEqual({ namespace: 'team-acme-api', name: 'api-kubeconfig', key: 'value' });
    expect(apps.output[web.kubernetes_version].value).toBe(env.clusters.find((c) => c.name === 'web')!.kubernetesVersion);
  });

  test('an environment built in code is recorded by its validated settings (no secrets in them), under the key Terraform ignores', () => {
    expect(Object.keys(platform['//'])).toContain(STACK_RECORDS_KEY);
    const records = readStackRecords(apps, 'apps/cdk.tf.json')!;
    expect(records.environments).toEqual({ acme: { spec: JSON.parse(JSON.stringify(env.spec)) } });
    expect(readStackRecords(platform, 'x')!.environments).toEqual(records.environments);
  });

  test('Terraform template sequences in the recorded settings stand escaped in the JSON, and read back as given', () => {
    const planted = '${var.x} %{ if true }x%{ endif } $${kept}';
    const hostile = teamEnvironment({ management: { apiAllowedCidrs: ['203.0.113.0/24'], metadata: { note: planted } } });
    const stack = synthTeamApp(hostile).json[TEAM_MANAGEMENT_STACK];
    const text = JSON.stringify(stack['//'][STACK_RECORDS_KEY]);
    expect(text).toContain('"note":"$${var.x} %%{ if true }x%%{ endif } $$${kept}"');
    expect((readStackRecords(stack, 'x')!.environments.acme as { spec: any }).spec.management.metadata.note).toBe(planted);
  });

  test("an environment from a file is recorded by its path, relative to the directory the app runs in; the ready-made stacks' outputs keep their plain names", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-file-'));
    fs.mkdirSync(path.join(dir, 'environments'));
    fs.writeFileSync(path.join(dir, 'environments', 'unit.yaml'), environmentYaml('clusters:\n  alpha: {}\n'));
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const fromFile = environment(fs.readFileSync('environments/unit.yaml', 'utf8'));
      const app = new App({ outdir: path.join(dir, 'cdktf.out') });
      const management = new ManagementStack(app, 'unit-management', { environment: fromFile });
      new WorkloadClusterStack(app, 'unit-alpha', { environment: fromFile, cluster: fromFile.clusters[0], management });
      app.synth();
    } finally {
      process.chdir(previous);
    }
    const read = (id: string) => readStackRecords(JSON.parse(fs.readFileSync(path.join(dir, 'cdktf.out', 'stacks', id, 'cdk.tf.json'), 'utf8')), id)!;
    expect(read('unit-management').environments).toEqual({ unit: { file: path.join('environments', 'unit.yaml') } });
    expect(read('unit-management').clusters[0].outputs).toEqual(Object.fromEntries(MANAGEMENT_OUTPUTS.map((n) => [n, n])));
    expect(read('unit-alpha').clusters[0].outputs).toEqual(Object.fromEntries(WORKLOAD_OUTPUTS.map((n) => [n, n])));
  });
});

describe('reading the records', () => {
  const good = () => JSON.parse(JSON.stringify(synthTeamApp(teamEnvironment()).json[TEAM_MANAGEMENT_STACK]));

  test('a stack without records (not one of these clusters, or synthesized before records) has none', () => {
    expect(readStackRecords({ '//': { metadata: {} }, resource: {} }, 'x')).toBeUndefined();
    expect(readStackRecords(undefined, 'x')).toBeUndefined();
  });

  test('records of another version, or malformed, are refused naming the stack file, the field, what was expected and found', () => {
    const newer = good();
    newer['//'][STACK_RECORDS_KEY].version = 2;
    expect(() => readStackRecords(newer, 'cdktf.out/stacks/platform-capi/cdk.tf.json')).toThrow(
      'cdktf.out/stacks/platform-capi/cdk.tf.json: "//".capi-openstack-cdktf.version: expected 1 (this version of capi-openstack reads no other: synthesize with the same version of the library), found 2',
    );
    const noOutput = good();
    delete noOutput['//'][STACK_RECORDS_KEY].clusters[0].outputs.kubeconfig;
    expect(() => readStackRecords(noOutput, 'f')).toThrow('f: "//".capi-openstack-cdktf.clusters[0].outputs.kubeconfig: expected a Terraform output name, found nothing');
    const strangeRole = good();
    strangeRole['//'][STACK_RECORDS_KEY].clusters[0].role = 'bogus';
    expect(() => readStackRecords(strangeRole, 'f')).toThrow('f: "//".capi-openstack-cdktf.clusters[0].role: expected "management" or "workload", found "bogus"');
    const otherEnvironment = good();
    otherEnvironment['//'][STACK_RECORDS_KEY].clusters[0].environment = 'prod';
    expect(() => readStackRecords(otherEnvironment, 'f')).toThrow('f: "//".capi-openstack-cdktf.clusters[0].environment: expected one of the recorded environments (acme), found "prod"');
  });
});
