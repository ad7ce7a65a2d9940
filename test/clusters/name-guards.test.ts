/**
 * Within an app, two constructs that would create the same OpenStack or Kubernetes name are refused
 * at synth, naming both construct paths (issue 37): the same WorkloadCluster in two stacks, two
 * ManagementClusters of one environment, and names that different environments or clusters join to.
 * Synthesis stops before the stack that holds the clash is written.
 */
import { ManagementCluster, WorkloadCluster, clusterNamed } from '../../lib';
import { environment, environmentYaml, managementStack, synthApp, workloadStack } from './support';

const API = 'apiAllowedCidrs: [198.51.100.0/24]';
const acme = environment(environmentYaml(`clusters:\n  web: { ${API} }\n  api: { ${API} }\n`), 'acme');

describe('names a construct owns are its own within the app', () => {
  test('one management cluster and two different workload clusters of an environment synthesize (no false clash)', () => {
    const r = synthApp((app) => {
      const management = new ManagementCluster(managementStack(app, 'platform'), 'Management', { environment: acme });
      for (const name of ['web', 'api']) new WorkloadCluster(workloadStack(app, `cluster-${name}`, management), 'Cluster', { environment: acme, cluster: clusterNamed(acme, name), management: { kind: 'created', cluster: management } });
    });
    expect(r.error).toBe('(no error)');
    expect(r.written.sort()).toEqual(['cluster-api', 'cluster-web', 'platform']);
  });

  test('the same WorkloadCluster in two stacks: refused at synth, both paths named, neither stack written', () => {
    const r = synthApp((app) => {
      const management = new ManagementCluster(managementStack(app, 'platform'), 'Management', { environment: acme });
      for (const id of ['web-a', 'web-b']) new WorkloadCluster(workloadStack(app, id, management), 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'created', cluster: management } });
    });
    expect(r.error).toContain(
      '[web-a/Web] WorkloadCluster: cluster: expected OpenStack and Kubernetes names no other construct of the app creates, found 11 shared with WorkloadCluster at web-b/Web ' +
        '(floating IP "capi-acme-web Kubernetes API", application credential "capi-acme-web", server group "capi-acme-web-control-plane" and 8 more); ' +
        'both build cluster "web" of environment "acme": destroying either stack would delete the other\'s cluster; build each cluster once',
    );
    expect(r.written).not.toContain('web-a');
    expect(r.written).not.toContain('web-b');
  });

  test('two ManagementClusters of one environment, in two stacks or in one', () => {
    const twoStacks = synthApp((app) => {
      new ManagementCluster(managementStack(app, 'mgmt-a'), 'Management', { environment: acme });
      new ManagementCluster(managementStack(app, 'mgmt-b'), 'Management', { environment: acme });
    });
    expect(twoStacks.error).toContain('[mgmt-a/Management] ManagementCluster: environment: expected OpenStack and Kubernetes names no other construct of the app creates, found 10 shared with ManagementCluster at mgmt-b/Management (network "capi-acme-mgmt", subnet "capi-acme-mgmt", router "capi-acme-mgmt" and 7 more); both build the management cluster of environment "acme": an environment has one');
    expect(twoStacks.written).toEqual([]);
    const oneStack = synthApp((app) => {
      const stack = managementStack(app, 'platform');
      new ManagementCluster(stack, 'First', { environment: acme });
      new ManagementCluster(stack, 'Second', { environment: acme });
    });
    // one message for the pair, from the later construct
    expect(oneStack.error).toContain('[platform/Second] ManagementCluster: environment: expected OpenStack and Kubernetes names no other construct of the app creates, found 10 shared with ManagementCluster at platform/First');
    expect(oneStack.error).not.toContain('[platform/First]');
  });

  test('prod with cluster eu-web beside prod-eu with cluster web: both name their resources capi-prod-eu-web', () => {
    const prod = environment(environmentYaml(`clusters:\n  eu-web: { ${API} }\n`), 'prod');
    const prodEu = environment(environmentYaml(`clusters:\n  web: { ${API} }\n`), 'prod-eu');
    const r = synthApp((app) => {
      new WorkloadCluster(workloadStack(app, 'prod-web'), 'Web', { environment: prod, cluster: clusterNamed(prod, 'eu-web'), management: { kind: 'existing' } });
      new WorkloadCluster(workloadStack(app, 'prod-eu-web'), 'Web', { environment: prodEu, cluster: clusterNamed(prodEu, 'web'), management: { kind: 'existing' } });
    });
    expect(r.error).toContain('[prod-web/Web] WorkloadCluster: cluster: expected OpenStack and Kubernetes names no other construct of the app creates, found 5 shared with WorkloadCluster at prod-eu-web/Web');
    expect(r.error).toContain('application credential "capi-prod-eu-web"');
    expect(r.error).toContain('prefix "capi" + environment "prod-eu" + cluster "web" and prefix "capi" + environment "prod" + cluster "eu-web" join to the same names: rename a cluster or give one environment another prefix');
  });

  test("cluster x of environment a-x-x beside cluster x-x of environment a: CAPO's names for them (<namespace>-<cluster>) are one", () => {
    const axx = environment(environmentYaml(`clusters:\n  x: { ${API} }\n`), 'a-x-x');
    const a = environment(environmentYaml(`clusters:\n  x-x: { ${API} }\n`), 'a');
    const r = synthApp((app) => {
      new WorkloadCluster(workloadStack(app, 'one'), 'Cluster', { environment: axx, cluster: clusterNamed(axx, 'x'), management: { kind: 'existing' } });
      new WorkloadCluster(workloadStack(app, 'two'), 'Cluster', { environment: a, cluster: clusterNamed(a, 'x-x'), management: { kind: 'existing' } });
    });
    expect(r.error).toContain(
      '[one/Cluster] WorkloadCluster: cluster: expected OpenStack and Kubernetes names no other construct of the app creates, found 6 shared with WorkloadCluster at two/Cluster ' +
        '(CAPO network "k8s-clusterapi-cluster-capi-a-x-x-x-x", CAPO subnet "k8s-clusterapi-cluster-capi-a-x-x-x-x", CAPO router "k8s-clusterapi-cluster-capi-a-x-x-x-x" and 3 more)',
    );
  });

  test('management clusters of prefix a + environment b-c and prefix a-b + environment c', () => {
    const bc = environment(environmentYaml('').replace('prefix: capi', 'prefix: a'), 'b-c');
    const c = environment(environmentYaml('').replace('prefix: capi', 'prefix: a-b'), 'c');
    const r = synthApp((app) => {
      new ManagementCluster(managementStack(app, 'one'), 'Management', { environment: bc });
      new ManagementCluster(managementStack(app, 'two'), 'Management', { environment: c });
    });
    expect(r.error).toContain('[one/Management] ManagementCluster: environment: expected OpenStack and Kubernetes names no other construct of the app creates, found 10 shared with ManagementCluster at two/Management (network "a-b-c-mgmt"');
    expect(r.error).toContain('prefix "a-b" + environment "c" and prefix "a" + environment "b-c" join to the same names');
  });

  test('apps are separate: the same environment built in two apps is no clash', () => {
    for (let i = 0; i < 2; i++) expect(synthApp((app) => new ManagementCluster(managementStack(app, 'platform'), 'Management', { environment: acme })).error).toBe('(no error)');
  });
});
