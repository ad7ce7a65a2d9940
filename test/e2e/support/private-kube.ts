/**
 * A private kube-apiserver on a free loopback port for tests that need only local-kube's
 * binaries (no shared services): its own plain etcd for storage, a CA the test made, an admin
 * client and kubeconfig, and `kubectl port-forward` through it.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { CertFiles, issueCertificate, openssl } from './local-pki';
import { freePort, startLogged, stopProcess } from './local-process';
import { localKubeBinDir } from './workload-process';
import { waitFor } from './workload-kube';

/**
 * local-kube's bin directory and `describe` for a suite that needs only its binaries (etcd,
 * kube-apiserver, kubectl, kubelet-standin); `describe.skip` with a warning when one is missing,
 * unless LOCAL_KUBE_REQUIRED=1.
 */
export function privateKubeSuite(label: string): { bin: string; suite: jest.Describe } {
  const bin = localKubeBinDir();
  const needed = ['etcd', 'kube-apiserver', 'kubectl', 'kubelet-standin'];
  const required = process.env.LOCAL_KUBE_REQUIRED === '1';
  const present = needed.every((b) => fs.existsSync(path.join(bin, b)));
  if (!present && !required) console.warn(`${label} skipped: ${needed.join(', ')} not all in ${bin} (scripts/local-kube/build; LOCAL_KUBE_REQUIRED=1 makes this a failure)`);
  return { bin, suite: present || required ? describe : describe.skip };
}

export interface PrivateKube {
  readonly client: KubeClient;
  readonly kubeconfig: string;
  /** The storage etcd's client URL (plain HTTP). */
  readonly etcdUrl: string;
  stop(): Promise<void>;
}

/** Starts a plain etcd and a kube-apiserver (serving and trusting `ca`) under dir. */
export async function startPrivateKube(bin: string, dir: string, ca: CertFiles, extraFlags: string[] = []): Promise<PrivateKube> {
  const [sp, pp, port] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${sp}`;
  const peer = `http://127.0.0.1:${pp}`;
  const storage = startLogged(path.join(bin, 'etcd'), ['--name=storage', `--data-dir=${dir}/storage.data`, `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`, `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=storage=${peer}`, '--log-level=warn'], `${dir}/storage.log`);
  const serving = issueCertificate(dir, 'apiserver', ca, '/CN=kube-apiserver', 'server');
  const admin = issueCertificate(dir, 'admin', ca, '/O=system:masters/CN=admin', 'client');
  openssl(['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', 'sa.key'], dir);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  const apiserver: ChildProcess = startLogged(path.join(bin, 'kube-apiserver'), [
    `--etcd-servers=${etcdUrl}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none',
    `--secure-port=${port}`, `--tls-cert-file=${serving.cert}`, `--tls-private-key-file=${serving.key}`, `--client-ca-file=${ca.cert}`,
    `--service-account-key-file=${dir}/sa.pub`, `--service-account-signing-key-file=${dir}/sa.key`, '--service-account-issuer=https://kubernetes.default.svc',
    '--service-cluster-ip-range=10.96.0.0/12', '--authorization-mode=RBAC', '--anonymous-auth=false', ...extraFlags,
  ], `${dir}/kube-apiserver.log`);
  const stop = async () => {
    await stopProcess(apiserver);
    await stopProcess(storage);
  };
  const server = `https://127.0.0.1:${port}`;
  const client = new KubeClient({ server, caPem: fs.readFileSync(ca.cert, 'utf8'), certPem: fs.readFileSync(admin.cert, 'utf8'), keyPem: fs.readFileSync(admin.key, 'utf8') });
  try {
    await waitFor(`the private kube-apiserver in ${dir}`, 120_000, async () => {
      if (apiserver.exitCode !== null) throw new Error(`kube-apiserver exited; see ${dir}/kube-apiserver.log`);
      const r = await client.get('/readyz');
      return r.kind === 'response' && r.status === 200 ? true : undefined;
    }, 500);
  } catch (e) {
    await stop();
    throw e;
  }
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, server, ca.cert, admin);
  return { client, kubeconfig, etcdUrl, stop };
}

export function writeKubeconfig(file: string, server: string, caFile: string, user: CertFiles): void {
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'e2e',
    clusters: [{ name: 'e2e', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: 'e2e', user: { 'client-certificate': user.cert, 'client-key': user.key } }],
    contexts: [{ name: 'e2e', context: { cluster: 'e2e', user: 'e2e' } }],
  }), { mode: 0o600 });
}

export interface PortForward {
  readonly port: number;
  /** kubectl's output so far (errors of the forwarded streams land here). */
  output(): string;
  stop(): Promise<void>;
}

/** `kubectl port-forward pod/<pod> :<port>` in kube-system; resolves once kubectl listens. */
export async function kubectlPortForward(bin: string, kubeconfig: string, pod: string, port = 2379): Promise<PortForward> {
  const kubectl = spawn(path.join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, '-n', 'kube-system', 'port-forward', `pod/${pod}`, `:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  kubectl.stdout.on('data', (c) => (out += c));
  kubectl.stderr.on('data', (c) => (out += c));
  const local = await waitFor(`kubectl port-forward pod/${pod}`, 30_000, async () => {
    if (kubectl.exitCode !== null) throw new Error(`kubectl port-forward exited: ${out}`);
    const m = new RegExp(`Forwarding from 127\\.0\\.0\\.1:(\\d+) -> ${port}`).exec(out);
    return m ? Number(m[1]) : undefined;
  }, 100);
  return { port: local, output: () => out, stop: () => stopProcess(kubectl) };
}
