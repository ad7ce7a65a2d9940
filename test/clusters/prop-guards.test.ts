/**
 * Props synthesis can already see are wrong are refused at construction with the construct path
 * and the prop (issue 37), never as a raw TypeError from inside: values that are no loaded
 * environment, an unknown management kind, a management cluster of another environment, and a
 * ManagementCluster for an environment that brings its own.
 */
import { App, TerraformStack } from 'cdktf';
import { ManagementCluster, ManagementStack, WorkloadCluster, WorkloadClusterStack, buildEnvironmentStacks, clusterNamed, environmentOpenstackProvider, managementKubernetesConnection } from '../../lib';
import { existingKubeconfig } from '../support/kubeconfig-fixture';
import { constructionError, environment, environmentYaml, managementStack, synthApp, workloadStack } from './support';

const API = 'apiAllowedCidrs: [198.51.100.0/24]';
const acme = environment(environmentYaml(`clusters:\n  web: { ${API} }\n`), 'acme');
const other = environment(environmentYaml(`clusters:\n  web: { ${API} }\n`), 'other');
const byo = environment(environmentYaml(`existingManagementCluster:\n  kubeconfigFile: ${existingKubeconfig()}\n  egressCidr: 192.0.2.0/24\nclusters:\n  web: { ${API} }\n`), 'byo');
const LOADED = 'expected a loaded environment (from loadEnvironmentFile, parseEnvironment or environmentFromObject)';

/** What JavaScript callers (or `as any`) can pass where an environment belongs. */
const NOT_ENVIRONMENTS: [string, unknown, string][] = [
  ['undefined', undefined, 'found nothing'],
  ['{}', {}, 'found a mapping without name, file, resourcePrefix, spec, cloud, managementCloud, clusters, warnings'],
  ["'acme'", 'acme', 'found "acme"'],
];

const anyProps = (p: unknown) => p as never;

describe('an environment that is none', () => {
  test.each(NOT_ENVIRONMENTS)('ManagementCluster with environment %s', (_, value, found) => {
    expect(constructionError(() => new ManagementCluster(managementStack(new App(), 'platform'), 'Management', anyProps({ environment: value })))).toBe(
      `Invalid props of ManagementCluster at platform/Management (1 problem):\n  environment: ${LOADED}, ${found}`,
    );
  });

  test.each(NOT_ENVIRONMENTS)('WorkloadCluster with environment %s', (_, value, found) => {
    const error = constructionError(() => new WorkloadCluster(workloadStack(new App(), 'web'), 'Web', anyProps({ environment: value, cluster: acme.clusters[0], management: { kind: 'existing' } })));
    expect(error).toBe(`Invalid props of WorkloadCluster at web/Web (1 problem):\n  environment: ${LOADED}, ${found}`);
  });

  test.each(NOT_ENVIRONMENTS)('ManagementStack and WorkloadClusterStack with environment %s', (_, value, found) => {
    expect(constructionError(() => new ManagementStack(new App(), 'acme-management', anyProps({ environment: value })))).toBe(`Invalid props of ManagementStack at acme-management (1 problem):\n  environment: ${LOADED}, ${found}`);
    expect(constructionError(() => new WorkloadClusterStack(new App(), 'acme-web', anyProps({ environment: value, cluster: acme.clusters[0] })))).toBe(
      `Invalid props of WorkloadClusterStack at acme-web (1 problem):\n  environment: ${LOADED}, ${found}`,
    );
  });

  test('no props at all: each prop named', () => {
    expect(constructionError(() => new ManagementCluster(managementStack(new App(), 'platform'), 'Management', anyProps(undefined)))).toContain(`environment: ${LOADED}, found nothing`);
    expect(constructionError(() => new WorkloadCluster(workloadStack(new App(), 'web'), 'Web', anyProps(undefined)))).toBe(
      `Invalid props of WorkloadCluster at web/Web (3 problems):\n  environment: ${LOADED}, found nothing\n  cluster: expected a value, found nothing\n  management: expected a value, found nothing`,
    );
    expect(constructionError(() => new ManagementStack(new App(), 'm', anyProps(undefined)))).toContain('Invalid props of ManagementStack at m (1 problem)');
  });

  test('managementKubernetesConnection(undefined)', () => {
    expect(constructionError(() => managementKubernetesConnection(anyProps(undefined)))).toBe(
      'managementKubernetesConnection(management): expected a management cluster (a ManagementCluster, a ManagementStack or another IManagementCluster), found nothing',
    );
  });
});

describe('the management of a WorkloadCluster', () => {
  const web = (management: unknown, env = acme) => () => new WorkloadCluster(workloadStack(new App(), 'web'), 'Web', anyProps({ environment: env, cluster: clusterNamed(env, 'web'), management }));

  test("management: { kind: 'bogus' } is refused, not taken for 'existing'", () => {
    expect(constructionError(web({ kind: 'bogus' }))).toBe(
      'Invalid props of WorkloadCluster at web/Web (1 problem):\n  management.kind: expected "created" (a management cluster built with this library) or "existing" (one that already runs CAPI), found "bogus"',
    );
    expect(constructionError(web('created'))).toContain("management: expected { kind: 'created', cluster } or { kind: 'existing' }, found \"created\"");
  });

  test("kind 'created' without a cluster, or with an object that is none", () => {
    expect(constructionError(web({ kind: 'created' }))).toContain('management.cluster: expected the management cluster of the environment (a ManagementCluster or ManagementStack), found nothing');
    expect(constructionError(web({ kind: 'created', cluster: { apiEndpoint: 'https://203.0.113.1:6443' } }))).toContain(
      'management.cluster: expected the management cluster of the environment (a ManagementCluster or ManagementStack), found a mapping without floatingIp, caCertificatePem, adminCertificatePem, adminKeyPem, externalNetworkId, externalNetworkName, nodeAccessSecurityGroupName',
    );
  });

  test('the ManagementCluster (or ManagementStack) of another environment', () => {
    const app = new App();
    const theirs = new ManagementCluster(managementStack(app, 'other-platform'), 'Management', { environment: other });
    expect(constructionError(() => new WorkloadCluster(workloadStack(app, 'web', theirs), 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'created', cluster: theirs } }))).toBe(
      'Invalid props of WorkloadCluster at web/Web (1 problem):\n  management.cluster: expected the management cluster of environment "acme", found the management cluster of environment "other" at other-platform/Management (each environment\'s workload clusters belong to its own)',
    );
    const stack = new ManagementStack(new App(), 'other-management', { environment: other });
    expect(constructionError(() => new WorkloadClusterStack(stack.node.root, 'acme-web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: stack }))).toContain(
      'management.cluster: expected the management cluster of environment "acme", found the management cluster of environment "other" at other-management',
    );
  });

  test("its own environment's ManagementCluster passes (the README composition)", () => {
    const r = synthApp((app) => {
      const management = new ManagementCluster(managementStack(app, 'platform'), 'Management', { environment: acme });
      new WorkloadCluster(workloadStack(app, 'web', management), 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'created', cluster: management } });
    });
    expect(r.error).toBe('(no error)');
  });

  test('a WorkloadClusterStack without management for an environment that has no existing one', () => {
    expect(constructionError(() => new WorkloadClusterStack(new App(), 'acme-web', { environment: acme, cluster: clusterNamed(acme, 'web') }))).toBe(
      'Invalid props of WorkloadClusterStack at acme-web (1 problem):\n  management: expected the management cluster of environment "acme" (its ManagementStack: environments/acme.yaml has no existingManagementCluster), found nothing',
    );
  });
});

describe('a ManagementCluster for an environment that brings its own', () => {
  test('is refused with the prop and what to do instead', () => {
    expect(constructionError(() => new ManagementCluster(managementStack(new App(), 'platform'), 'Management', { environment: byo }))).toBe(
      'Invalid props of ManagementCluster at platform/Management (1 problem):\n  environment: expected an environment whose management cluster this library creates, ' +
        "found environment \"byo\" with existingManagementCluster (its workload clusters go to that cluster: give them management { kind: 'existing' } and build no ManagementCluster)",
    );
  });

  test('its workload clusters with management existing synthesize', () => {
    expect(synthApp((app) => new WorkloadCluster(workloadStack(app, 'web'), 'Web', { environment: byo, cluster: clusterNamed(byo, 'web'), management: { kind: 'existing' } })).error).toBe('(no error)');
  });
});

test('the checks run before anything is added to the stack', () => {
  const stack = new TerraformStack(new App(), 'platform');
  constructionError(() => new ManagementCluster(stack, 'Management', anyProps({ environment: 'acme' })));
  expect(stack.node.findAll().map((c) => c.node.path)).toEqual(['platform', 'platform/Management']);
});

describe('the functions that take an environment', () => {
  test.each(NOT_ENVIRONMENTS)('buildEnvironmentStacks and environmentOpenstackProvider with environment %s', (_, value, found) => {
    expect(constructionError(() => buildEnvironmentStacks(new App(), value as never))).toBe(`buildEnvironmentStacks(scope, environment): environment: ${LOADED}, ${found}`);
    expect(constructionError(() => environmentOpenstackProvider(new TerraformStack(new App(), 's'), value as never))).toBe(`environmentOpenstackProvider(scope, environment, cloud): environment: ${LOADED}, ${found}`);
  });

  test('environmentOpenstackProvider with a cloud that is none', () => {
    expect(constructionError(() => environmentOpenstackProvider(new TerraformStack(new App(), 's'), acme, 'mycloud' as never))).toBe(
      'environmentOpenstackProvider(scope, environment, cloud): cloud: expected environment.cloud or environment.managementCloud, found "mycloud"',
    );
  });
});
