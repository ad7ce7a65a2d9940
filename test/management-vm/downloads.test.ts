import {
  CLUSTERCTL_DOWNLOAD,
  DEFAULT_MANAGEMENT_TOOLS,
  DEFAULT_ORC_VERSION,
  KIND_DOWNLOAD,
  KIND_NODE_IMAGE,
  KUBECTL_DOWNLOAD,
  MANAGEMENT_DOWNLOADS,
  clusterctlDownload,
  isSha256Hex,
  kindDownload,
  kubectlDownload,
} from '../../lib/config/downloads';
import { CLUSTER_API_RELEASES, DEFAULT_CONTROLLER_VERSIONS, compareMinor, comparePatch, kubernetesSupportWarning, minorOf } from '../../lib/config/versions';

describe('pinned downloads', () => {
  it.each([
    ['kind', KIND_DOWNLOAD, 'https://github.com/kubernetes-sigs/kind/releases/download/'],
    ['kubectl', KUBECTL_DOWNLOAD, 'https://dl.k8s.io/release/'],
    ['clusterctl', CLUSTERCTL_DOWNLOAD, 'https://github.com/kubernetes-sigs/cluster-api/releases/download/'],
  ])('%s: https URL of that version, linux/amd64, with a SHA-256', (_name, d, prefix) => {
    expect(d.url.startsWith(prefix)).toBe(true);
    expect(d.url).toContain(`/${d.version}/`);
    expect(d.url).toMatch(/linux[-/]amd64/);
    expect(isSha256Hex(d.sha256)).toBe(true);
  });

  it('pins the node image by digest, and kubectl matches its Kubernetes version', () => {
    const m = /^kindest\/node:(v\d+\.\d+\.\d+)@sha256:([0-9a-f]{64})$/.exec(KIND_NODE_IMAGE);
    expect(m).not.toBeNull();
    expect(KUBECTL_DOWNLOAD.version).toBe(m![1]);
  });

  it('runs a management Kubernetes version the default Cluster API release supports, from its patch on', () => {
    const k8s = minorOf(KUBECTL_DOWNLOAD.version)!;
    const release = CLUSTER_API_RELEASES[minorOf(DEFAULT_CONTROLLER_VERSIONS.clusterApi)!];
    const [lo, hi] = release.managementKubernetes;
    expect(compareMinor(k8s, lo)).toBeGreaterThanOrEqual(0);
    expect(compareMinor(k8s, hi)).toBeLessThanOrEqual(0);
    const fromPatch = release.kubernetesFromPatch?.[k8s];
    if (fromPatch) expect(comparePatch(DEFAULT_CONTROLLER_VERSIONS.clusterApi, fromPatch)).toBeGreaterThanOrEqual(0);
    // clusterctl checks a provider's contract (metadata.yaml), not its minor: a pinned clusterctl of
    // an older v1beta2-contract release (every release in the matrix) installs and upgrades the default
    const clusterctlMinor = minorOf(CLUSTERCTL_DOWNLOAD.version)!;
    expect(Object.keys(CLUSTER_API_RELEASES)).toContain(clusterctlMinor);
    expect(compareMinor(clusterctlMinor, minorOf(DEFAULT_CONTROLLER_VERSIONS.clusterApi)!)).toBeLessThanOrEqual(0);
  });

  it('runs a supported Kubernetes minor on the management VM (not past its end of life, not in maintenance today)', () => {
    expect(kubernetesSupportWarning(KUBECTL_DOWNLOAD.version)).toBeUndefined();
  });

  it('exposes the default tool set under both names', () => {
    expect(MANAGEMENT_DOWNLOADS).toBe(DEFAULT_MANAGEMENT_TOOLS);
    expect(DEFAULT_MANAGEMENT_TOOLS).toEqual({ kind: KIND_DOWNLOAD, kubectl: KUBECTL_DOWNLOAD, clusterctl: CLUSTERCTL_DOWNLOAD, kindNodeImage: KIND_NODE_IMAGE });
    expect(DEFAULT_ORC_VERSION).toMatch(/^v2\.\d+\.\d+$/);
  });

  it('builds operator-pinned downloads and checks them', () => {
    const sha = 'A'.repeat(64);
    expect(clusterctlDownload('v1.12.10', sha)).toEqual({
      version: 'v1.12.10',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.10/clusterctl-linux-amd64',
      sha256: 'a'.repeat(64),
    });
    expect(kubectlDownload('v1.35.1', sha).url).toBe('https://dl.k8s.io/release/v1.35.1/bin/linux/amd64/kubectl');
    expect(kindDownload('v0.32.0', sha).url).toBe(KIND_DOWNLOAD.url);
    expect(() => clusterctlDownload('1.12.10', sha)).toThrow('clusterctl: expected a release version like v1.2.3, found "1.12.10"');
    expect(() => clusterctlDownload('v1.12.10', 'abc')).toThrow('clusterctl v1.12.10: expected a SHA-256 of 64 hex characters, found "abc"');
  });
});
