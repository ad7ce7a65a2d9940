/** Environment files loaded together (synthesis, validate) may not give resources each other's names. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadEnvironments } from '../../lib/config/load';
import { capoResourceNames } from '../../lib/config/capo-names';
import { ownedNames, sharedNameProblems } from '../../lib/config/owned-names';
import { memoryIo } from '../../lib/runtime/cli/io';
import { runCli } from '../../lib/runtime/cli/main';
import { withDeployAccess } from '../support/deploy-access';

const env = (file: string, name: string, prefix: string, clusters: string[] = []) => ({ file, name, prefix, hasManagementStack: true, clusters: clusters.map((c) => ({ name: c, nodeGroups: ['md-0'] })) });

describe('sharedNameProblems', () => {
  test('prefix a + environment b-c and prefix a-b + environment c: one line naming both files and a shared name', () => {
    expect(sharedNameProblems([env('b-c.yaml', 'b-c', 'a'), env('c.yaml', 'c', 'a-b')])).toEqual([
      'b-c.yaml and c.yaml: expected environments whose resources have names of their own, found both name a network "a-b-c-mgmt" ' +
        '(prefix "a" + environment "b-c" and prefix "a-b" + environment "c" join to the same names; destroying one would let its cleanup take the other\'s load balancers and volumes): ' +
        'give one of them another prefix or cluster name',
    ]);
  });

  test('prod with cluster eu-web and prod-eu with cluster web share the cluster\'s names', () => {
    const [line] = sharedNameProblems([env('prod.yaml', 'prod', 'capi', ['eu-web']), env('prod-eu.yaml', 'prod-eu', 'capi', ['web'])]);
    expect(line).toContain('found both name a floating IP "capi-prod-eu-web Kubernetes API"');
  });

  test('prod and prod-eu with their own cluster names, and one file given twice, are fine', () => {
    expect(sharedNameProblems([env('prod.yaml', 'prod', 'capi', ['web']), env('prod-eu.yaml', 'prod-eu', 'capi', ['web']), env('prod.yaml', 'prod', 'capi', ['web'])])).toEqual([]);
  });
});

describe('synthesis and validate load the files together', () => {
  const base = withDeployAccess('cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-names-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  fs.writeFileSync(path.join(dir, 'environments', 'b-c.yaml'), `${base}prefix: a\n`);
  fs.writeFileSync(path.join(dir, 'environments', 'c.yaml'), `${base}prefix: a-b\n`);

  test('loadEnvironments (what the app synthesizes) refuses them, naming both files', () => {
    expect(() => loadEnvironments(path.join(dir, 'environments'))).toThrow(/b-c\.yaml and .*c\.yaml: expected environments whose resources have names of their own, found both name a network "a-b-c-mgmt"/);
    // one of them alone is valid
    expect(loadEnvironments(path.join(dir, 'environments'), ['c']).map((e) => e.resourcePrefix)).toEqual(['a-b-c']);
  });

  test('validate: each file is ok alone, the pair fails with exit code 1', async () => {
    const io = memoryIo(dir);
    expect(await runCli(['validate'], io)).toBe(1);
    expect(io.stdout).toEqual([`ok  ${dir}/environments/b-c.yaml (0 clusters)`, `ok  ${dir}/environments/c.yaml (0 clusters)`]);
    expect(io.stderr.join('\n')).toContain(`${dir}/environments/b-c.yaml and ${dir}/environments/c.yaml: expected environments whose resources have names of their own`);
    expect(io.stderr[io.stderr.length - 1]).toBe('1 pair(s) of environment files give resources the same names');
  });
});

describe('CAPO\'s own names (<namespace>-<cluster>) across files', () => {
  test('the names CAPO v0.14 gives a cluster\'s network, subnet, router, API load balancer and security groups', () => {
    expect(capoResourceNames('capi-prod-web', 'web')).toEqual([
      { kind: 'network', name: 'k8s-clusterapi-cluster-capi-prod-web-web' },
      { kind: 'subnet', name: 'k8s-clusterapi-cluster-capi-prod-web-web' },
      { kind: 'router', name: 'k8s-clusterapi-cluster-capi-prod-web-web' },
      { kind: 'load balancer', name: 'k8s-clusterapi-cluster-capi-prod-web-web-kubeapi' },
      { kind: 'security group', name: 'k8s-cluster-capi-prod-web-web-secgroup-controlplane' },
      { kind: 'security group', name: 'k8s-cluster-capi-prod-web-web-secgroup-worker' },
    ]);
  });

  test('a-x-x.yaml with cluster x and a.yaml with cluster x-x: one line naming both files, environments, clusters and the network', () => {
    expect(sharedNameProblems([env('a-x-x.yaml', 'a-x-x', 'capi', ['x']), env('a.yaml', 'a', 'capi', ['x-x'])])).toEqual([
      'a-x-x.yaml and a.yaml: expected clusters whose resources CAPO names apart, found cluster "x" of environment "a-x-x" and cluster "x-x" of environment "a" ' +
        'both get CAPO\'s network "k8s-clusterapi-cluster-capi-a-x-x-x-x" (CAPO names a cluster\'s network, subnet, router, security groups and API load balancer after "<namespace>-<cluster>": ' +
        '"capi-a-x-x-x" + "x" and "capi-a-x-x" + "x-x" join to the same name, and in one project CAPO reuses what has that name, so one cluster would run on the other\'s network and delete it with its own): ' +
        'rename one of the clusters',
    ]);
    // the pair shares none of our own names: only CAPO's collide; one file given twice is fine
    const ours = (e: ReturnType<typeof env>) => new Set(ownedNames(e).map((n) => `${n.kind} ${n.name}`));
    const [axx, a] = [ours(env('a-x-x.yaml', 'a-x-x', 'capi', ['x'])), ours(env('a.yaml', 'a', 'capi', ['x-x']))];
    expect([...axx].filter((n) => a.has(n))).toEqual([]);
    expect(sharedNameProblems([env('a-x-x.yaml', 'a-x-x', 'capi', ['x']), env('a-x-x.yaml', 'a-x-x', 'capi', ['x'])])).toEqual([]);
  });

  describe('synthesis and validate', () => {
    const base = withDeployAccess('cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capo-names-'));
    fs.mkdirSync(path.join(dir, 'environments'));
    fs.writeFileSync(path.join(dir, 'environments', 'a-x-x.yaml'), `${base}clusters:\n  x:\n    apiAllowedCidrs: [198.51.100.0/24]\n`);
    fs.writeFileSync(path.join(dir, 'environments', 'a.yaml'), `${base}clusters:\n  x-x:\n    apiAllowedCidrs: [198.51.100.0/24]\n`);

    test('loadEnvironments refuses the pair; each file alone loads', () => {
      expect(() => loadEnvironments(path.join(dir, 'environments'))).toThrow(
        /a-x-x\.yaml and .*a\.yaml: expected clusters whose resources CAPO names apart, found cluster "x" of environment "a-x-x" and cluster "x-x" of environment "a" both get CAPO's network "k8s-clusterapi-cluster-capi-a-x-x-x-x"/,
      );
      expect(loadEnvironments(path.join(dir, 'environments'), ['a']).map((e) => e.clusters[0].namespace)).toEqual(['capi-a-x-x']);
      expect(loadEnvironments(path.join(dir, 'environments'), ['a-x-x']).map((e) => e.clusters[0].namespace)).toEqual(['capi-a-x-x-x']);
    });

    test('validate: each file ok, the pair fails with exit code 1', async () => {
      const io = memoryIo(dir);
      expect(await runCli(['validate'], io)).toBe(1);
      expect(io.stdout).toEqual([`ok  ${dir}/environments/a-x-x.yaml (1 cluster)`, `ok  ${dir}/environments/a.yaml (1 cluster)`]);
      expect(io.stderr.join('\n')).toContain(`${dir}/environments/a-x-x.yaml and ${dir}/environments/a.yaml: expected clusters whose resources CAPO names apart`);
      expect(io.stderr[io.stderr.length - 1]).toBe('1 pair(s) of environment files give resources the same names');
    });
  });
});
