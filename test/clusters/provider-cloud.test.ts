/**
 * The OpenStack provider in a construct's stack must log in with the environment's clouds.yaml
 * entry: resources named after the environment in another project would escape its cleanup and
 * orphans check (issue 37). Refused at synth, naming the construct, the provider's path and both
 * entries; the provider helper, an aliased provider and one without `cloud` pass.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack } from 'cdktf';
import { KubernetesProvider, ManagementCluster, OpenstackProvider, TimeProvider, TlsProvider, WorkloadCluster, clusterNamed, environmentOpenstackProvider, parseEnvironment } from '../../lib';
import { environment, environmentYaml, managementStack, synthApp, workloadStack } from './support';

const acme = environment(environmentYaml('clusters:\n  web: { apiAllowedCidrs: [198.51.100.0/24] }\n'), 'acme');

describe("the OpenStack provider logs in with the environment's cloud", () => {
  test('a ManagementCluster beside a provider of another cloud', () => {
    const r = synthApp((app) => new ManagementCluster(managementStack(app, 'platform', 'elsewhere'), 'Management', { environment: acme }));
    expect(r.error).toContain(
      '[platform/Management] ManagementCluster: environment: expected the OpenStack provider of stack "platform" to log in with the environment\'s clouds.yaml entry "testcloud" (cloud.name), ' +
        'found OpenstackProvider at platform/Cloud with cloud "elsewhere": the resources would go to another project than the environment\'s; environmentOpenstackProvider(stack, environment, environment.managementCloud) adds the right one',
    );
    expect(r.written).toEqual([]);
  });

  test('a WorkloadCluster beside a provider of another cloud', () => {
    const r = synthApp((app) => new WorkloadCluster(workloadStack(app, 'web', undefined, 'elsewhere'), 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'existing' } }));
    expect(r.error).toContain('[web/Web] WorkloadCluster: environment: expected the OpenStack provider of stack "web" to log in with the environment\'s clouds.yaml entry "testcloud" (cloud.name), found OpenstackProvider at web/Cloud with cloud "elsewhere"');
    expect(r.error).toContain('environmentOpenstackProvider(stack, environment) adds the right one');
  });

  test('the helper, an aliased second provider and a provider without cloud (OS_* variables) pass', () => {
    const r = synthApp((app) => {
      const stack = new TerraformStack(app, 'platform');
      environmentOpenstackProvider(stack, acme, acme.managementCloud);
      new OpenstackProvider(stack, 'Other', { cloud: 'elsewhere', alias: 'other' });
      new TlsProvider(stack, 'Tls');
      new ManagementCluster(stack, 'Management', { environment: acme });
      const web = new TerraformStack(app, 'web');
      new OpenstackProvider(web, 'Cloud', {});
      new TimeProvider(web, 'Time');
      new KubernetesProvider(web, 'Management', { configPath: '/dev/null' });
      new WorkloadCluster(web, 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'existing' } });
    });
    expect(r.error).toBe('(no error)');
  });

  test('with management.cloud, the management stack must use that entry (the workload entry is refused there)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provider-cloud-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'clouds.yaml'),
        'clouds:\n' +
          '  testcloud:\n    auth: {auth_url: "https://keystone.test:5000/v3", username: op, project_name: workloads, project_domain_name: Default}\n    region_name: RegionOne\n' +
          '  testcloud-mgmt:\n    auth: {auth_url: "https://keystone.test:5000/v3", username: op, project_name: management, project_domain_name: Default}\n    region_name: RegionOne\n',
      );
      const text = environmentYaml('management:\n  cloud: testcloud-mgmt\n').replace('  region: RegionOne\n', '  region: RegionOne\n  cloudsFile: clouds.yaml\n');
      const env = parseEnvironment(text, path.join(dir, 'acme.yaml'));
      const wrong = synthApp((app) => new ManagementCluster(managementStack(app, 'platform', 'testcloud'), 'Management', { environment: env }));
      expect(wrong.error).toContain('log in with the environment\'s clouds.yaml entry "testcloud-mgmt" (management.cloud), found OpenstackProvider at platform/Cloud with cloud "testcloud"');
      const right = synthApp((app) => {
        const stack = new TerraformStack(app, 'platform');
        environmentOpenstackProvider(stack, env, env.managementCloud);
        new TlsProvider(stack, 'Tls');
        new ManagementCluster(stack, 'Management', { environment: env });
      });
      expect(right.error).toBe('(no error)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
