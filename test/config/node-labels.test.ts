import { kubeletExtraArgs } from '../../lib/capi/kubeadm';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { labelKeyProblem, labelValueProblem } from '../../lib/config/node-labels';
import { withDeployAccess } from '../support/deploy-access';

const FILE = 'environments/t.yaml';
const withLabels = (labels: string) =>
  withDeployAccess(`cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\nclusters:\n  a:\n    nodeGroups:\n      - name: md-0\n        labels: ${labels}\n`);

function errorOf(labels: string): string {
  try {
    parseEnvironment(withLabels(labels), FILE);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  throw new Error(`expected labels ${labels} to be refused`);
}

describe('node labels are checked as Kubernetes checks them', () => {
  test.each([
    ['a comma that would add a control-plane label to the kubelet flag', '{ team: "a,node-role.kubernetes.io/control-plane=" }', 'labels.team: expected a label value', '"a,node-role.kubernetes.io/control-plane="'],
    ['a newline', '{ team: "a\\nb" }', 'labels.team: expected a label value', '"a\\nb"'],
    ['a command substitution', '{ team: "$(id)" }', 'labels.team: expected a label value', '"$(id)"'],
    ['"=" in a key', '{ "a=b": c }', 'labels.a=b: expected a label key', '"a=b"'],
    ['a comma in a key', '{ "a,b": c }', 'labels.a,b: expected a label key', '"a,b"'],
    ['an empty key', '{ "": c }', 'expected a label key', 'found ""'],
    ['an empty name after the prefix', '{ "example.com/": c }', 'expected a label key', '"example.com/"'],
    ['a name of 64 characters', `{ ${'n'.repeat(64)}: c }`, 'expected a label key', 'n'.repeat(57)],
    ['a value of 64 characters', `{ team: ${'v'.repeat(64)} }`, 'labels.team: expected a label value', 'v'.repeat(57)],
    ['an uppercase prefix', '{ "Example.com/a": c }', 'expected a label key', '"Example.com/a"'],
    ['the host name the kubelet sets', '{ kubernetes.io/hostname: evil }', 'labels.kubernetes.io/hostname: expected a label the node does not set itself', '"kubernetes.io/hostname"'],
    ['the zone the cloud controller manager sets', '{ topology.kubernetes.io/zone: az9 }', 'expected a label the node does not set itself', '"topology.kubernetes.io/zone"'],
    ['the control-plane role', '{ node-role.kubernetes.io/control-plane: "" }', 'expected a role other than the control plane', '"node-role.kubernetes.io/control-plane"'],
    ['a reserved kubernetes.io key', '{ kubernetes.io/team: a }', 'expected a label outside the kubernetes.io and k8s.io namespaces', '"kubernetes.io/team"'],
    ['a reserved subdomain of k8s.io', '{ sub.k8s.io/team: a }', 'expected a label outside the kubernetes.io and k8s.io namespaces', '"sub.k8s.io/team"'],
  ])('%s is refused naming the field, the line and the value', (_what, labels, expected, found) => {
    const message = errorOf(labels);
    expect(message).toContain(`${FILE}:`);
    expect(message).toContain('clusters.a.nodeGroups[0].labels');
    expect(message).toContain(expected);
    expect(message).toContain(found);
  });

  test('labels a kubelet may set, labels CAPI copies onto the Node and plain labels pass', () => {
    const labels = { 'node.kubernetes.io/pool': 'a', 'kubelet.kubernetes.io/x': 'b', 'node-role.kubernetes.io/worker': '', 'node-restriction.kubernetes.io/dedicated': 'pii', 'example.com/team': 'a.b-c_d', team: '', 'x-k8s.io/y': 'z' };
    const env = parseEnvironment(withLabels(JSON.stringify(labels)), FILE);
    expect(env.clusters[0].spec.nodeGroups[0].labels).toEqual(labels);
    expect(labelKeyProblem(`${'a'.repeat(253)}/n`)).toBeUndefined();
    expect(labelKeyProblem(`${'a'.repeat(254)}/n`)).toContain('expected a label key');
    expect(labelValueProblem('v'.repeat(63))).toBeUndefined();
  });

  test('the kubelet flag builder refuses labels that did not come through the schema', () => {
    expect(kubeletExtraArgs({ team: 'a' })).toContainEqual({ name: 'node-labels', value: 'team=a' });
    expect(() => kubeletExtraArgs({ team: 'a,node-role.kubernetes.io/control-plane=' })).toThrow(/node label "team": expected a label value/);
    expect(() => kubeletExtraArgs({ 'kubernetes.io/hostname': 'x' })).toThrow(/does not set itself/);
  });
});
