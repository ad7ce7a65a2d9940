/**
 * Nova takes at most 65535 characters of base64 user data (49,149 bytes of document). `validate`
 * estimates the management VM's and every node's user data from the environment and refuses what
 * would not fit, naming the field to shrink; synth measures the rendered documents and refuses
 * them too (for hand-made inputs). The estimate is held against the measure: never below it, and
 * not far above.
 */
import { buildClusterObjects } from '../../lib/capi';
import { EnvironmentConfig } from '../../lib/config';
import { nodeUserDataEstimate } from '../../lib/config/node-user-data-estimate';
import { NOVA_USER_DATA_LIMIT_BYTES } from '../../lib/config/user-data-limits';
import { vmUserDataEstimate } from '../../lib/config/vm-user-data-estimate';
import { renderManagementUserData } from '../../lib/management-vm';
import { inputsFor, makeEnv } from '../capi/fixtures';
import { baseProps } from '../management-vm/helpers';
import { synthEnvironment } from '../stacks/support';
import { refusalOf } from '../support/refusal';
import { seededRandom } from '../support/seeded-random';
import { corpusEnvironment, fakeCertificates, kubeconfigFile, measuredNodeBytes, measuredVmBytes, pemFile } from '../support/user-data-corpus';

/** How far above the measure the estimate may be (it errs on the safe side by design). */
const SLACK_BYTES = 3 * 1024;

function compare(label: string, estimate: number, measured: number | undefined): void {
  if (measured === undefined) {
    // synth refused it as too big: validate must refuse it as well
    expect({ label, refusedAtValidate: estimate > NOVA_USER_DATA_LIMIT_BYTES }).toEqual({ label, refusedAtValidate: true });
    return;
  }
  expect({ label, belowMeasure: estimate < measured, overBy: Math.max(0, estimate - measured - SLACK_BYTES) }).toEqual({ label, belowMeasure: false, overBy: 0 });
}

/** `env` grown by hand past what its file said, towards Nova's limit: more trusted CAs for the VM, mirrors with CAs for the nodes. */
function grown(env: EnvironmentConfig, r: () => number): EnvironmentConfig {
  const mirrors = Array.from({ length: Math.floor(r() * 4) }, (_, i) => ({ registry: `grown${i}.example.com`, endpoints: ['https://m.example.com/v2'], caCertificatePem: fakeCertificates(r, 1 + Math.floor(r() * 8)), skipVerify: false }));
  return { ...env, managementTrustedCaPem: (env.managementTrustedCaPem ?? '') + fakeCertificates(r, Math.floor(r() * 20)), registryMirrors: [...env.registryMirrors, ...mirrors] };
}

describe('the estimate at validate against the measure at synth', () => {
  test('seeded environments from small to past the limit: never below the measure, at most 3 KiB above', () => {
    const r = seededRandom(0x5eed0da7a);
    const seen = { vmOver: 0, vmUnder: 0, nodesOver: 0, nodesUnder: 0 };
    for (let n = 0; n < 48; n++) {
      const env = n % 2 === 0 ? corpusEnvironment(r) : grown(corpusEnvironment(r), r);
      const vm = measuredVmBytes(env);
      compare(`case ${n}: management VM`, vmUserDataEstimate(env).bytes, vm);
      seen[vm === undefined ? 'vmOver' : 'vmUnder']++;
      const nodes = measuredNodeBytes(env, 'demo');
      const cluster = env.clusters[0];
      const estimates = [nodeUserDataEstimate(env, cluster).bytes, ...cluster.spec.nodeGroups.map((_, i) => nodeUserDataEstimate(env, cluster, i).bytes)];
      if (nodes === undefined) compare(`case ${n}: control plane`, estimates[0], undefined);
      else estimates.forEach((e, i) => compare(`case ${n}: ${i === 0 ? 'control plane' : `node group ${i - 1}`}`, e, nodes[i]));
      seen[nodes === undefined ? 'nodesOver' : 'nodesUnder']++;
    }
    // both sides of the limit were reached
    expect(Object.values(seen).every((v) => v > 0)).toBe(true);
  });
});

describe('the estimate where it is loose on purpose', () => {
  test('nodes\' proxy drop-ins stored gzip+base64 (a long proxy URL full of escapes, NO_PROXY at its bound): never below the measure', () => {
    const r = seededRandom(9);
    const soup = Array.from({ length: 1900 }, () => '%{}a/'[Math.floor(r() * 5)]).join('').replace(/%\{/g, '%7B');
    const noProxy = Array.from({ length: 146 }, (_, i) => `h${String(i).padStart(3, "0")}-${"x".repeat(14)}.example`);
    // (no management VM: its user data could not hold both)
    const env = makeEnv(`existingManagementCluster:\n  kubeconfigFile: ${kubeconfigFile()}\nproxy:\n  httpProxy: "http://proxy.example.com:3128/${soup}"\n  noProxy: [${noProxy.join(', ')}]\nclusters:\n  demo: {}\n`);
    const measured = measuredNodeBytes(env, 'demo')!;
    const files = (buildClusterObjects(inputsFor(env, 'demo')).find((o) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec.files;
    expect(files.filter((f: { encoding?: string }) => f.encoding === 'gzip+base64').map((f: { path: string }) => f.path)).toEqual(['/etc/systemd/system/containerd.service.d/http-proxy.conf', '/etc/systemd/system/kubelet.service.d/http-proxy.conf']);
    expect(nodeUserDataEstimate(env, env.clusters[0]).bytes).toBeGreaterThanOrEqual(measured[0]);
    expect(nodeUserDataEstimate(env, env.clusters[0], 0).bytes).toBeGreaterThanOrEqual(measured[1]);
  });
});

const cloud = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.example.test:5000/v3\n  region: RegionOne\n';

describe('validate refuses user data Nova would refuse, naming the field to shrink', () => {
  test('600 trusted CA certificates for the management VM', () => {
    const r = seededRandom(1);
    const e = refusalOf(() => makeEnv(`management:\n  trustedCaCertificateFile: ${pemFile(r, 600)}\nclusters:\n  demo: {}\n`));
    expect(e.issues).toHaveLength(1);
    expect(e.message).toMatch(
      /test\.yaml:\d+:\d+: management\.trustedCaCertificateFile: expected the user data of the management VM to fit Nova's limit of 49,149 bytes \(65535 characters once base64-encoded\), found about [\d,]+ bytes: 31,900 bytes that every such document needs, then management\.trustedCaCertificateFile [\d,]+ bytes; shrink the largest/,
    );
  });

  test('CAs that a control-plane node cannot take with the certificates CAPI adds there (no management VM: an existing cluster)', () => {
    const r = seededRandom(2);
    const mirrors = [0, 1, 2].map((i) => `  - {registry: r${i}.example.com, endpoints: ["https://m${i}.example.com"], caCertificateFile: ${pemFile(r, 5)}}`);
    const existing = `existingManagementCluster:\n  kubeconfigFile: ${kubeconfigFile()}\n`;
    const e = refusalOf(() => makeEnv(`${cloud}  caCertificateFile: ${pemFile(r, 8)}\n${existing}registryMirrors:\n${mirrors.join('\n')}\nclusters:\n  demo: {}\n`));
    expect(e.issues.map((i) => i.path)).toEqual(['cloud.caCertificateFile']);
    expect(e.message).toMatch(/:\d+:\d+: cloud\.caCertificateFile: expected the user data of each control-plane node of cluster demo to fit Nova's limit of 49,149 bytes .*found about [\d,]+ bytes: 2\d,\d{3} bytes that every such document needs, then cloud\.caCertificateFile [\d,]+ bytes, registryMirrors\[\d\]\.caCertificateFile/);
  });

  test('a CA bundle that does not fit a node file even gzip+base64 (synth refused it without file or line)', () => {
    const r = seededRandom(3);
    const e = refusalOf(() => makeEnv(`${cloud}  caCertificateFile: ${pemFile(r, 15)}\nclusters:\n  demo: {}\n`));
    expect(e.message).toMatch(/:\d+:\d+: cloud\.caCertificateFile: expected certificates that fit a file on the workload nodes \(Cluster API takes at most 10240 characters; longer ones are stored gzip\+base64\), found \d+ characters after gzip\+base64/);
  });

  test('a mirror whose endpoints overflow hosts.toml', () => {
    const endpoints = Array.from({ length: 120 }, (_, i) => `"https://mirror-${i}.example.com:5000/v2/mirror"`);
    const e = refusalOf(() => makeEnv(`registryMirrors:\n  - {registry: quay.io, endpoints: [${endpoints.join(', ')}]}\nclusters:\n  demo: {}\n`));
    expect(e.message).toMatch(/registryMirrors\[0\]\.endpoints: expected endpoints that fit containerd's hosts\.toml in one file on the workload nodes \(Cluster API takes at most 10240 characters\), found about \d+ characters for 120 endpoints/);
  });

  test('just under the limit validates and synthesizes', () => {
    const r = seededRandom(4);
    // 13 certificates bring the VM's estimate to about 48 KB
    const env = makeEnv(`management:\n  trustedCaCertificateFile: ${pemFile(r, 13)}\nclusters:\n  demo: {}\n`);
    expect(vmUserDataEstimate(env).bytes).toBeGreaterThan(NOVA_USER_DATA_LIMIT_BYTES - 4096);
    expect(Object.keys(synthEnvironment(env).json).sort()).toEqual(['test-demo', 'test-management']);
  });
});

describe('synth measures what it renders (inputs put together by hand)', () => {
  test('the management VM with 600 trusted CAs', () => {
    expect(() => renderManagementUserData(baseProps({ trustedCaCertificatesPem: fakeCertificates(seededRandom(5), 600) }))).toThrow(
      /^management VM user data: expected at most 49,149 bytes \(Nova takes at most 65535 characters of base64\), found [\d,]+ bytes; largest parts: ca_certs \(trustedCaCertificatesPem\) [\d,]+ bytes/,
    );
  });

  test('a control-plane node with four mirrors\' CAs', () => {
    const env = makeEnv('clusters:\n  demo: {}\n');
    const r = seededRandom(6);
    const mirrors = [0, 1, 2, 3].map((i) => ({ registry: `r${i}.example.com`, endpoints: ['https://m.example.com'], caCertificatePem: fakeCertificates(r, 8), skipVerify: false }));
    expect(() => buildClusterObjects(inputsFor({ ...env, registryMirrors: mirrors }, 'demo'))).toThrow(
      /^cluster demo, control plane: expected the user data of each node to fit Nova's limit of 49,149 bytes \(65535 characters of base64\), found about [\d,]+ bytes \(16,384 bytes of them for what Cluster API adds: certificates, the kubeadm configuration\); largest files: \/etc\/containerd\/certs\.d\/r\d\.example\.com\/ca\.crt/,
    );
  });
});
