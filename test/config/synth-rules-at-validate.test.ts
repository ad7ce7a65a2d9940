/**
 * Every rule the builders enforce at synth is checked where `validate` runs: each file below passed
 * validate and then made synth throw a plain Error without file or line. Now validate refuses it
 * naming file, line, field, expectation and value; the values at the edge of each rule synthesize.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError } from '../../lib/config';
import { environment, environmentYaml, synthEnvironment } from '../stacks/support';
import { refusalOf } from '../support/refusal';
import { seededRandom } from '../support/seeded-random';

const FILE = 'environments/unit.yaml';

/** The test environment with `network` lines added and `extra` appended. */
function yamlOf(networkLines: string, extra: string): string {
  return environmentYaml(extra).replace('network:\n', `network:\n${networkLines}`);
}

function refusal(text: string): EnvironmentConfigError {
  return refusalOf(() => environment(text));
}

/** Valid labels (values of at most 63 characters) whose kubelet flag `l00=…,l01=…` is `flagLength` long. */
const labels = (flagLength: number) => {
  const count = Math.ceil((flagLength + 1) / 68);
  const valueTotal = flagLength - (count - 1) - 4 * count;
  const values = Array.from({ length: count }, (_, i) => Math.floor(valueTotal / count) + (i < valueTotal % count ? 1 : 0));
  return `{${values.map((n, i) => `l${String(i).padStart(2, '0')}: "${'x'.repeat(n)}"`).join(', ')}}`;
};

const REFUSED: [string, string, string, RegExp][] = [
  // [what, network lines, appended YAML, expected line of the message]
  ['a non-Linux sshUsername', '', 'management:\n  sshUsername: Admin\n', /unit\.yaml:\d+:\d+: management\.sshUsername: expected a Linux user name: .*found "Admin"/],
  ['an MTU below IPv4\'s 576', '  mtu: 575\n', '', /unit\.yaml:\d+:\d+: network\.mtu: expected 0 \(detect\) or an MTU from 576 to 9000, found number 575/],
  ['Kubernetes v1.29 without a pinned OCCM chart', '', 'versions:\n  clusterApi: v1.12.10\nclusters:\n  demo:\n    kubernetesVersion: v1.29.x\n    addons: {cinderCsi: false}\n', /clusters\.demo\.addons\.openstackCloudControllerManager: expected a chart version for Kubernetes v1\.29/],
  ['Kubernetes v1.30 without a pinned Cinder CSI chart', '', 'versions:\n  clusterApi: v1.12.10\nclusters:\n  demo:\n    kubernetesVersion: v1.30.x\n    addons: {openstackCloudControllerManager: false}\n', /clusters\.demo\.addons\.cinderCsi: expected a chart version for Kubernetes v1\.30/],
  ['node labels over the kubelet flag\'s 1024 characters', '', `clusters:\n  demo:\n    nodeGroups:\n      - {name: md-0, labels: ${labels(1025)}}\n`, /clusters\.demo\.nodeGroups\[0\]\.labels: expected labels that fit the kubelet's --node-labels flag \(at most 1024 .*found 1025 characters/],
  ['two mirrors for one registry', '', 'registryMirrors:\n  - {registry: docker.io, endpoints: [https://a.example]}\n  - {registry: docker.io, endpoints: [https://b.example]}\n', /unit\.yaml:\d+:\d+: registryMirrors\[1\]\.registry: expected each registry once .*found "docker\.io" again/],
  ['proxy port 99999', '', 'proxy:\n  httpProxy: http://proxy.example:99999\n', /proxy\.httpProxy: expected a URL with a valid host and a port from 1 to 65535.*found "http:\/\/proxy\.example:99999"/],
  ['mirror port 0', '', 'registryMirrors:\n  - {registry: docker.io, endpoints: ["https://a.example:0"]}\n', /registryMirrors\[0\]\.endpoints\[0\]: expected a URL with a valid host and a port/],
  ['managementCidr /29 with the default pool', '  managementCidr: 10.0.0.0/29\n', '', /network\.managementCidr: expected room for the default allocation pool \(from the 11th address, 10\.0\.0\.11\), found "\/29" with 8 addresses/],
  ['2000 noProxy entries', '', `proxy:\n  httpProxy: http://proxy.example:3128\n  noProxy: [${Array.from({ length: 2000 }, (_, i) => `h${i}.example.com`).join(', ')}]\n`, /proxy\.noProxy: expected entries taking at most 4096 characters .*found 34889 characters in 2000 entries; cover many hosts with one "\.domain" or CIDR entry/],
];

describe('rules synth enforced are refused by validate', () => {
  test.each(REFUSED)('%s', (_, network, extra, message) => {
    const e = refusal(yamlOf(network, extra));
    expect(e.file).toBe(FILE);
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0].line).toBeGreaterThan(0);
    expect(e.message).toMatch(message);
  });
});

/** Hosts of random letters: the worst case for gzip. */
function incompressibleNoProxy(seed: number, length: number): string[] {
  const r = seededRandom(seed);
  const entries: string[] = [];
  let used = -1;
  while (used + 61 <= length) {
    entries.push(Array.from({ length: 60 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 36)]).join(''));
    used += 61;
  }
  const rest = length - used - 1;
  if (rest > 0) entries.push('a'.repeat(rest));
  return entries;
}

describe('values at the edge of each rule synthesize', () => {
  test('noProxy of exactly the bound, incompressible, with the longest proxy URL, fits the node files', () => {
    const noProxy = incompressibleNoProxy(7, 4096);
    expect(noProxy.join(',').length).toBe(4096);
    const proxy = `http://proxy.example:3128/${'q'.repeat(2048 - 'http://proxy.example:3128/'.length)}`;
    // an existing management cluster: the VM's user data would hold both about ten times and not fit Nova's limit
    const kubeconfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-')), 'kubeconfig');
    fs.writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
    const env = environment(yamlOf('', `existingManagementCluster:\n  kubeconfigFile: ${kubeconfig}\nproxy:\n  httpProxy: ${proxy}\n  noProxy: [${noProxy.join(', ')}]\nclusters:\n  demo: {}\n`));
    const json = synthEnvironment(env).json;
    expect(Object.keys(json).sort()).toEqual(['unit-demo']);
  });

  test('labels of exactly 1024 characters, MTU 576, a /28 with the default pool and a pinned OCCM for v1.30 synthesize', () => {
    const env = environment(
      yamlOf(
        '  managementCidr: 10.0.0.0/28\n  mtu: 576\n',
        `versions:\n  clusterApi: v1.12.10\nclusters:\n  demo:\n    kubernetesVersion: v1.30.x\n    addons: {openstackCloudControllerManager: {version: 2.30.3}, cinderCsi: false}\n    nodeGroups:\n      - {name: md-0, labels: ${labels(1024)}}\n`,
      ),
    );
    expect(env.allocationPool).toEqual({ start: '10.0.0.11', end: '10.0.0.14' });
    expect(Object.keys(synthEnvironment(env).json)).toContain('unit-demo');
  });
});
