/**
 * management.tools: where the management VM's binaries come from and which releases, and its kind
 * node image — the air-gapped path besides registryMirrors and providerManifests.
 */
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { DEFAULT_MANAGEMENT_TOOLS } from '../../lib/config/downloads';
import { managementTools, mirroredToolUrl } from '../../lib/config/management-tools';
import { renderManagementUserData } from '../../lib/management-vm/management-user-data';
import { withDeployAccess } from '../support/deploy-access';

const BASE = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
const load = (tools: string) => parseEnvironment(withDeployAccess(`${BASE}management:\n  tools:\n${tools}`), 'environments/tools.yaml').spec;
const SHA = 'b'.repeat(64);
const IMAGE = `mirror.example/kind/node:v1.36.1@sha256:${'c'.repeat(64)}`;

function problem(tools: string): string {
  try {
    load(tools);
  } catch (e) {
    expect(e).toBeInstanceOf(EnvironmentConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the environment to be refused');
}

describe('management.tools', () => {
  test('without it, the tested releases from their release URLs', () => {
    const tools = managementTools(parseEnvironment(withDeployAccess(BASE), 'environments/tools.yaml').spec.management.tools);
    expect(tools).toEqual(DEFAULT_MANAGEMENT_TOOLS);
  });

  test('a mirror moves every URL to <baseUrl>/<name>/<version>/<release file>, checksums unchanged', () => {
    const tools = managementTools(load('    baseUrl: https://mirror.example/capi-tools/\n').management.tools);
    expect(tools.kind).toEqual({ ...DEFAULT_MANAGEMENT_TOOLS.kind, url: `https://mirror.example/capi-tools/kind/${DEFAULT_MANAGEMENT_TOOLS.kind.version}/kind-linux-amd64` });
    expect(tools.kubectl.url).toBe(`https://mirror.example/capi-tools/kubectl/${DEFAULT_MANAGEMENT_TOOLS.kubectl.version}/kubectl`);
    expect(tools.clusterctl.url).toBe(`https://mirror.example/capi-tools/clusterctl/${DEFAULT_MANAGEMENT_TOOLS.clusterctl.version}/clusterctl-linux-amd64`);
    expect(tools.clusterctl.sha256).toBe(DEFAULT_MANAGEMENT_TOOLS.clusterctl.sha256);
    expect(tools.kindNodeImage).toBe(DEFAULT_MANAGEMENT_TOOLS.kindNodeImage);
  });

  test('another release with its checksum, from its release URL or from the mirror; another node image', () => {
    const fromRelease = managementTools(load(`    clusterctl: { version: v1.14.2, sha256: ${SHA} }\n    kindNodeImage: ${IMAGE}\n`).management.tools);
    expect(fromRelease.clusterctl).toEqual({ version: 'v1.14.2', url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.14.2/clusterctl-linux-amd64', sha256: SHA });
    expect(fromRelease.kind).toEqual(DEFAULT_MANAGEMENT_TOOLS.kind);
    expect(fromRelease.kindNodeImage).toBe(IMAGE);
    const mirrored = managementTools(load(`    baseUrl: https://m.example\n    kubectl: { version: v1.34.10, sha256: ${SHA} }\n`).management.tools);
    expect(mirrored.kubectl).toEqual({ version: 'v1.34.10', url: mirroredToolUrl('https://m.example', 'kubectl', 'v1.34.10'), sha256: SHA });
  });

  test('the VM downloads what the environment names (rendered user data)', () => {
    const tools = managementTools(load(`    baseUrl: https://mirror.example/t\n    kindNodeImage: ${IMAGE}\n`).management.tools);
    const text = renderManagementUserData({
      kindClusterName: 'capi-mgmt',
      apiServerAddress: '203.0.113.10',
      caCertificatePemBase64: 'Y2E=',
      caPrivateKeyPemBase64: 'a2V5',
      managementCidr: '10.0.0.0/24',
      versions: { ...tools, clusterApi: 'v1.14.2', capo: 'v0.14.7', caaph: 'v0.6.4' },
    });
    const scripts = [...text.matchAll(/content: (\S+)\n\s+encoding: b64/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n');
    expect(scripts).toContain(`install_verified kind https://mirror.example/t/kind/${DEFAULT_MANAGEMENT_TOOLS.kind.version}/kind-linux-amd64 ${DEFAULT_MANAGEMENT_TOOLS.kind.sha256}`);
    expect(scripts).toContain(`NODE_IMAGE=${IMAGE}`);
    expect(text).toContain(`image: ${IMAGE}`);
  });

  test('malformed values are refused with file, line, field and value', () => {
    expect(problem('    kind: { version: "0.32", sha256: abc }\n')).toMatch(/environments\/tools\.yaml:\d+:\d+: management\.tools\.kind\.version: expected a version like v1\.12\.10.*"0\.32"/);
    expect(problem('    kind: { version: v0.32.0, sha256: abc }\n')).toMatch(/management\.tools\.kind\.sha256: expected a SHA-256: 64 lowercase hexadecimal characters.*"abc"/);
    expect(problem('    kind: { version: v0.32.0 }\n')).toMatch(/management\.tools\.kind\.sha256/);
    expect(problem('    kindNodeImage: kindest/node:v1.36.1\n')).toMatch(/management\.tools\.kindNodeImage: expected an image pinned by digest: name:tag@sha256:<64 hex>.*"kindest\/node:v1\.36\.1"/);
    expect(problem('    baseUrl: ftp://mirror.example\n')).toMatch(/management\.tools\.baseUrl/);
    expect(problem('    helm: { version: v3.20.2, sha256: ' + SHA + ' }\n')).toMatch(/management\.tools.*helm/);
  });

  test('a mirror over plain http is refused at validate, with file, line and field (it passed and then failed synth without either)', () => {
    expect(problem('    baseUrl: http://mirror.example/t\n')).toMatch(
      /environments\/tools\.yaml:\d+:\d+: management\.tools\.baseUrl: expected an https:\/\/ URL \(the management VM downloads its tools over https only\), found "http:\/\/mirror\.example\/t"/,
    );
    // the only scheme the VM's download script takes, also on loopback
    expect(problem('    baseUrl: http://127.0.0.1:8080\n')).toMatch(/management\.tools\.baseUrl: expected an https:\/\/ URL/);
    expect(load('    baseUrl: https://mirror.example/t\n').management.tools?.baseUrl).toBe('https://mirror.example/t');
  });
});
