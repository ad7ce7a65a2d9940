/** Exact names an environment owns, when another environment could own them too, and the names one file may not repeat. */
import { EnvironmentConfigError } from '../../lib/config/errors';
import { parseEnvironment } from '../../lib/config/load';
import { NamedEnvironment, ambiguity, otherClusterSplits, otherEnvironmentSplits, ownedNames } from '../../lib/config/owned-names';
import { withDeployAccess } from '../support/deploy-access';

const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';

function problems(text: string, file = 'environments/t.yaml'): string {
  try {
    parseEnvironment(withDeployAccess(text), file);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  return '(valid)';
}

const env = (name: string, prefix: string, clusters: NamedEnvironment['clusters'] = []): NamedEnvironment => ({ name, prefix, hasManagementStack: true, clusters });

describe('ownedNames', () => {
  test('the management stack and every cluster, by kind, exactly', () => {
    const names = ownedNames(env('prod', 'capi', [{ name: 'web', nodeGroups: ['md-0'] }])).map((n) => `${n.kind}: ${n.name} [${n.owner}${n.nodeGroup ? ` ${n.nodeGroup}` : ''}]`);
    expect(names).toEqual([
      'network: capi-prod-mgmt [management]',
      'subnet: capi-prod-mgmt [management]',
      'router: capi-prod-mgmt [management]',
      'port: capi-prod-mgmt [management]',
      'security group: capi-prod-mgmt [management]',
      'server: capi-prod-mgmt [management]',
      'key pair: capi-prod-mgmt [management]',
      'security group: capi-prod-node-access [management]',
      'volume: capi-prod-mgmt-boot [management]',
      'floating IP: capi-prod-mgmt API [management]',
      'floating IP: capi-prod-web Kubernetes API [web]',
      'application credential: capi-prod-web [web]',
      'server group: capi-prod-web-control-plane [web]',
      'server group: capi-prod-web-md-0 [web md-0]',
    ]);
  });

  test('prod owns none of prod-eu\'s names (a prefix match would take them all)', () => {
    const prod = new Set(ownedNames(env('prod', 'capi', [{ name: 'demo', nodeGroups: ['md-0'] }])).map((n) => `${n.kind} ${n.name}`));
    const eu = ownedNames(env('prod-eu', 'capi', [{ name: 'demo', nodeGroups: ['md-0'] }])).map((n) => `${n.kind} ${n.name}`);
    expect(eu.every((n) => n.startsWith(`${n.split(' capi-')[0]} capi-prod-`))).toBe(true);
    expect(eu.filter((n) => prod.has(n))).toEqual([]);
  });
});

describe('ambiguity: another environment could produce the name', () => {
  test('prefix "a" + environment "b-c" and prefix "a-b" + environment "c" give the same names', () => {
    expect(otherEnvironmentSplits('a', 'b-c')).toEqual([['a-b', 'c']]);
    expect(otherEnvironmentSplits('a-b', 'c')).toEqual([['a', 'b-c']]);
    const ab = ownedNames(env('c', 'a-b')).map((n) => `${n.kind} ${n.name}`);
    expect(ownedNames(env('b-c', 'a')).map((n) => `${n.kind} ${n.name}`)).toEqual(ab);
    const e = env('b-c', 'a');
    expect(ambiguity(e, ownedNames(e)[0])).toBe('prefix "a-b" with environment "c" gives the same name');
  });

  test('a cluster "eu-demo" of prod is cluster "demo" of prod-eu', () => {
    expect(otherClusterSplits('capi', 'prod', 'eu-demo')).toEqual([['capi', 'prod-eu', 'demo'], ['capi-prod', 'eu', 'demo']]);
    const e = env('prod', 'capi', [{ name: 'eu-demo', nodeGroups: [] }]);
    const api = ownedNames(e).find((n) => n.kind === 'floating IP' && n.owner === 'eu-demo')!;
    expect(ambiguity(e, api)).toBe('prefix "capi", environment "prod-eu", cluster "demo" gives the same name');
  });

  test('names without a second split are not ambiguous', () => {
    const e = env('prod', 'capi', [{ name: 'web', nodeGroups: ['md-0'] }]);
    expect(ownedNames(e).map((n) => ambiguity(e, n)).filter(Boolean)).toEqual([]);
    // a split must give valid parts: an environment cannot start with a digit, a prefix has at most 20 characters
    expect(otherEnvironmentSplits('capi', 'x-1y')).toEqual([]);
    expect(otherEnvironmentSplits('abcdefghijklmnop', 'qrst-u')).toEqual([]);
  });
});

describe('one file never names two resources alike', () => {
  test('a node group named control-plane is refused (it is the control plane\'s server group)', () => {
    const message = problems(`${base}clusters:\n  web:\n    nodeGroups:\n      - { name: control-plane, count: 1 }\n`);
    expect(message).toMatch(/environments\/t\.yaml:\d+:\d+: clusters\.web\.nodeGroups\[0\]\.name: /);
    expect(message).toContain('expected a node group name other than "control-plane" (reserved: the control plane\'s server group is "<cluster>-control-plane"), found "control-plane"');
  });

  test('cluster x with node group y-z and cluster x-y with node group z would share server group capi-t-x-y-z', () => {
    const text = `${base}clusters:\n  x:\n    nodeGroups:\n      - { name: y-z, count: 1 }\n  x-y:\n    network: { nodeCidr: 10.9.0.0/20 }\n    nodeGroups:\n      - { name: z, count: 1 }\n`;
    const message = problems(text);
    expect(message).toContain('clusters.x-y.nodeGroups[0].name');
    expect(message).toContain('expected a name whose server group "capi-t-x-y-z" no other part of the file has, found it is also the server group of clusters.x.nodeGroups[0] ("y-z")');
  });

  test('a node group whose server group is another cluster\'s control plane group', () => {
    const text = `${base}clusters:\n  x:\n    nodeGroups:\n      - { name: y-control-plane, count: 1 }\n  x-y:\n    network: { nodeCidr: 10.9.0.0/20 }\n`;
    expect(problems(text)).toContain('found it is also the server group of clusters.x-y.controlPlane');
  });

  test('distinct names stay valid', () => {
    expect(problems(`${base}clusters:\n  x:\n    nodeGroups:\n      - { name: md-0, count: 1 }\n      - { name: md-1, count: 1 }\n`)).toBe('(valid)');
  });
});
