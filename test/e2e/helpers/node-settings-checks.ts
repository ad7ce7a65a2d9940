/**
 * The node settings the product renders from the environment's outbound proxy and the OpenStack
 * API's CA, checked on booted nodes of the workload-nodes suite (issue 35):
 * - the proxy drop-ins are in the environment of the running containerd and kubelet processes
 *   (/proc/<MainPID>/environ, what they really got, not what a file says);
 * - NO_PROXY keeps what the nodes talk to off the proxy: a recording proxy (support/recording-proxy.ts)
 *   saw no request while the cluster booted, joined and pulled through the registry mirror;
 * - containerd does use it: a pull from a registry NO_PROXY does not list arrives at the proxy;
 * - the CA is in the node's trust store: curl on the node, with the system store only, trusts an
 *   HTTPS server whose certificate the CA signed and refuses one signed by another CA (control).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { CertFiles, issueCertificate, makeCa } from '../support/local-pki';
import { ProxiedRequest, RecordingProxy } from '../support/recording-proxy';
import { ok } from '../support/workload-kube';
import { mirroredManifest } from './registry-mirror';

type OnNode = (argv: readonly string[]) => { code: number | null; out: string };

/** A registry host no NO_PROXY entry covers: containerd must send its pull to the proxy. */
export const PROXIED_REGISTRY = 'proxy-check.capi-e2e.test';

/**
 * The proxy's requests that no image missing from the registry mirror explains: containerd pulls
 * an image the mirror lacks from registry.k8s.io itself (hosts.toml keeps the upstream host after
 * the mirror), through the proxy. Such images are the ones pods fail to pull (ErrImagePull,
 * ImagePullBackOff) whose manifest the mirror answers 404 for (here: Cinder CSI's
 * node-driver-registrar, not built); each goes into `findings`. Without one, every request counts.
 */
export async function proxyRequestsNotExplained(requests: readonly ProxiedRequest[], workload: KubeClient, findings: string[]): Promise<ProxiedRequest[]> {
  const pods = ok(await workload.get('/api/v1/pods'), 'listing pods', [200]).items as any[];
  const failing = new Set(pods.flatMap((p) => ((p.status?.containerStatuses ?? []) as any[]).filter((c) => /ErrImagePull|ImagePullBackOff/.test(c.state?.waiting?.reason ?? '')).map((c) => c.image as string)));
  const missing: string[] = [];
  for (const image of failing) {
    if (/^registry\.k8s\.io\/.+:[^:/]+$/.test(image) && (await mirroredManifest(image)).status === 404) missing.push(image);
  }
  if (missing.length === 0) return [...requests];
  findings.push(`images the registry mirror lacks, pulled from registry.k8s.io through the proxy: ${missing.join(', ')} (${requests.filter((r) => r.line === 'CONNECT registry.k8s.io:443').length} CONNECTs)`);
  return requests.filter((r) => r.line !== 'CONNECT registry.k8s.io:443');
}

/** On a control-plane node: the registry mirror's hosts.toml, read by containerd (config_path), and the product's etcd flags in the etcd manifest. */
export function expectMirrorAndEtcdSettings(onNode: OnNode): void {
  const hosts = onNode(['cat', '/etc/containerd/certs.d/registry.k8s.io/hosts.toml']);
  expect(hosts.out).toContain('[host."http://172.30.250.1:5000"]');
  // containerd's CRI plugin looks for hosts.toml where the product writes them
  const config = onNode(['containerd', 'config', 'dump']).out;
  expect(config).toMatch(/config_path = ['"]\/etc\/containerd\/certs\.d['"]/);
  const manifest = onNode(['cat', '/etc/kubernetes/manifests/etcd.yaml']).out;
  for (const flag of ['--heartbeat-interval=250', '--election-timeout=2500', '--snapshot-count=6400', '--auto-compaction-mode=periodic', '--auto-compaction-retention=8h']) expect(manifest).toContain(flag);
}

/** The environment a systemd unit's main process runs with, read from /proc. */
export function unitProcessEnvironment(onNode: OnNode, unit: string): Record<string, string> {
  const r = onNode(['bash', '-c', `pid=$(systemctl show -p MainPID --value ${unit}); [ "$pid" -gt 0 ] || { echo "${unit} has no main process" >&2; exit 1; }; tr '\\0' '\\n' < /proc/$pid/environ`]);
  if (r.code !== 0) throw new Error(`reading the environment of ${unit}: ${r.out.slice(-400)}`);
  return Object.fromEntries(r.out.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The proxy variables of an environment (both spellings), for comparison. */
export function proxyVariables(env: Record<string, string>): Record<string, string | undefined> {
  return Object.fromEntries(['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].map((k) => [k, env[k]]));
}

/** `docker exec` without blocking the event loop (the proxy and the TLS servers answer from this process meanwhile). */
export function execAsync(dockerHost: string, container: string, argv: readonly string[], timeoutMs = 120_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('docker', ['exec', container, ...argv], { env: { ...process.env, DOCKER_HOST: dockerHost } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** A CA for cloud.caCertificateFile and two serving certificates for `host`: one it signed, one another CA signed. */
export interface TrustFixture {
  readonly dir: string;
  readonly caFile: string;
  readonly trusted: CertFiles;
  readonly untrusted: CertFiles;
}

export function makeTrustFixture(host: string): TrustFixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-e2e-node-trust-'));
  const ca = makeCa(dir, 'cloud-ca', 'capi-e2e cloud CA');
  const other = makeCa(dir, 'other-ca', 'capi-e2e untrusted CA');
  return {
    dir,
    caFile: ca.cert,
    trusted: issueCertificate(dir, 'trusted', ca, `/CN=${host}`, 'server', `IP:${host}`),
    untrusted: issueCertificate(dir, 'untrusted', other, `/CN=${host}`, 'server', `IP:${host}`),
  };
}

/** What curl on a node reported for the server of each certificate. */
export interface TrustProbe {
  readonly trusted: { code: number | null; out: string };
  readonly untrusted: { code: number | null; out: string };
}

/** Serves HTTPS on `host` with each certificate and lets curl on the node (system trust store) fetch from both. */
export async function probeNodeTrust(fixture: TrustFixture, host: string, dockerHost: string, container: string): Promise<TrustProbe> {
  const serve = (c: CertFiles) =>
    new Promise<https.Server>((resolve, reject) => {
      const s = https.createServer({ cert: fs.readFileSync(c.cert), key: fs.readFileSync(c.key) }, (_req, res) => res.end('trusted by the node\n'));
      s.once('error', reject);
      s.listen(0, host, () => resolve(s));
    });
  const servers = [await serve(fixture.trusted), await serve(fixture.untrusted)];
  try {
    const curl = (s: https.Server) => execAsync(dockerHost, container, ['curl', '-sS', '--noproxy', '*', '--max-time', '15', `https://${host}:${(s.address() as AddressInfo).port}/`], 60_000);
    return { trusted: await curl(servers[0]), untrusted: await curl(servers[1]) };
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }
}

/** A pull of an image of PROXIED_REGISTRY through containerd's CRI on the node; fails (the proxy refuses), which is expected. */
export async function pullThroughProxy(proxy: RecordingProxy, dockerHost: string, container: string): Promise<{ pull: { code: number | null; out: string }; seen: string[] }> {
  const since = Date.now();
  const pull = await execAsync(dockerHost, container, ['timeout', '60', 'crictl', 'pull', `${PROXIED_REGISTRY}/capi-e2e/probe:1`], 90_000);
  return { pull, seen: proxy.requests.filter((r) => r.at >= since).map((r) => r.line) };
}

/** A node stand-in as the proxy and trust checks reach it. */
export interface SettingsNode {
  readonly serverName: string;
  readonly container: string;
}

export interface ProxyAndTrustCheck<N extends SettingsNode> {
  readonly nodes: readonly N[];
  readonly onNode: (node: N, argv: string[]) => { code: number | null; out: string };
  readonly proxyUrl: string;
  /** Hosts and CIDRs every NO_PROXY must name. */
  readonly noProxyMust: readonly string[];
  readonly trust: TrustFixture;
  readonly host: string;
  readonly dockerHost: string;
  readonly log: (line: string) => void;
}

/** On every node: containerd and kubelet run with the proxy (both spellings) and a NO_PROXY naming `noProxyMust`; the trust store accepts the fixture CA's server and refuses another CA's. */
export async function expectProxyAndTrustOnNodes<N extends SettingsNode>(o: ProxyAndTrustCheck<N>): Promise<void> {
  const proxied = { HTTP_PROXY: o.proxyUrl, HTTPS_PROXY: o.proxyUrl, http_proxy: o.proxyUrl, https_proxy: o.proxyUrl };
  for (const n of o.nodes) {
    for (const unit of ['containerd', 'kubelet']) {
      const env = unitProcessEnvironment((argv) => o.onNode(n, [...argv]), unit);
      const noProxy = (env.NO_PROXY ?? '').split(',');
      expect({ node: n.serverName, unit, proxy: proxyVariables(env), noProxyCovers: o.noProxyMust.filter((x) => noProxy.includes(x)) }).toEqual({ node: n.serverName, unit, proxy: proxied, noProxyCovers: o.noProxyMust });
    }
    const t = await probeNodeTrust(o.trust, o.host, o.dockerHost, n.container);
    o.log(`trust store of ${n.serverName}: CA-signed server → exit ${t.trusted.code}; other CA's → exit ${t.untrusted.code} ${t.untrusted.out.trim().slice(0, 120)}`);
    // curl exit 60: the peer certificate cannot be authenticated with the known CA certificates
    expect({ node: n.serverName, trusted: t.trusted.code, said: t.trusted.out.trim(), untrusted: t.untrusted.code }).toEqual({ node: n.serverName, trusted: 0, said: 'trusted by the node', untrusted: 60 });
  }
}
