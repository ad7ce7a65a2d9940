/**
 * A workload cluster's API server and nothing else: a real kube-apiserver on 127.0.0.1 (local-kube's
 * binary and etcd, under a prefix of its own) with a CA made here, and an admin kubeconfig for it.
 * Enough for Cluster API's Helm add-on provider, which installs charts through the API server only:
 * the objects a chart renders are stored and read back; no controller, scheduler or kubelet runs, so
 * no pod does either.
 */
import { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { issueCertificate, makeCa, openssl } from './local-pki';
import { workloadApiServerFlags } from './workload-apiserver-flags';
import { freePort, startLogged, stopProcess } from './local-process';
import { waitFor } from './workload-kube';

export interface BareWorkloadApiServerOptions {
  /** local-kube's bin directory (kube-apiserver). */
  readonly kubeBinDir: string;
  /** local-kube's etcd client URL. */
  readonly etcdUrl: string;
  /** Unique per run: the etcd prefix of this API server's data, which stop() deletes. */
  readonly name: string;
  /** Where certificates and the log go. */
  readonly dir: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export class BareWorkloadApiServer {
  private process?: ChildProcess;
  server = '';
  /** Admin kubeconfig (system:masters), as Cluster API keeps it in `<cluster>-kubeconfig`. */
  kubeconfig = '';
  client!: KubeClient;

  private constructor(private readonly o: BareWorkloadApiServerOptions) {}

  static async start(o: BareWorkloadApiServerOptions): Promise<BareWorkloadApiServer> {
    const s = new BareWorkloadApiServer(o);
    await s.run();
    return s;
  }

  private get etcdPrefix(): string {
    return `/bare-workload/${this.o.name}`;
  }

  private async run(): Promise<void> {
    const { dir } = this.o;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const ca = makeCa(dir, 'ca', `${this.o.name}-ca`);
    const serving = issueCertificate(dir, 'apiserver', ca, '/CN=kube-apiserver', 'server');
    const admin = issueCertificate(dir, 'admin', ca, '/O=system:masters/CN=kubernetes-admin', 'client');
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'sa.key'], dir);
    openssl(['ec', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
    await this.wipe();
    const port = await freePort();
    this.server = `https://127.0.0.1:${port}`;
    this.process = startLogged(
      path.join(this.o.kubeBinDir, 'kube-apiserver'),
      workloadApiServerFlags({ etcdUrl: this.o.etcdUrl, etcdPrefix: this.etcdPrefix, port, servingCert: serving.cert, servingKey: serving.key, clientCaCert: ca.cert, dir, allowPrivileged: true }),
      path.join(dir, 'kube-apiserver.log'),
    );
    const pem = (f: string) => fs.readFileSync(f, 'utf8');
    this.client = new KubeClient({ server: this.server, caPem: pem(ca.cert), certPem: pem(admin.cert), keyPem: pem(admin.key), timeoutMs: 10_000 });
    await waitFor(`the workload API server ${this.server} to be ready`, 120_000, async () => {
      if (this.process?.exitCode !== null) throw new Error(`kube-apiserver exited (${this.process?.exitCode}); see ${path.join(dir, 'kube-apiserver.log')}`);
      const r = await this.client.get('/readyz');
      return r.kind === 'response' && r.status === 200 ? true : undefined;
    }, 500);
    this.kubeconfig = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: this.o.name, cluster: { server: this.server, 'certificate-authority-data': b64(pem(ca.cert)) } }],
      users: [{ name: `${this.o.name}-admin`, user: { 'client-certificate-data': b64(pem(admin.cert)), 'client-key-data': b64(pem(admin.key)) } }],
      contexts: [{ name: this.o.name, context: { cluster: this.o.name, user: `${this.o.name}-admin` } }],
      'current-context': this.o.name,
    });
  }

  /** Deletes every key under this server's etcd prefix (through etcd's v3 JSON gateway). */
  private async wipe(): Promise<void> {
    const key = `${this.etcdPrefix}/`;
    const end = key.slice(0, -1) + String.fromCharCode(key.charCodeAt(key.length - 1) + 1);
    const r = await fetch(`${this.o.etcdUrl}/v3/kv/deleterange`, { method: 'POST', body: JSON.stringify({ key: b64(key), range_end: b64(end) }) });
    if (!r.ok) throw new Error(`deleting ${key} from etcd failed: ${r.status} ${await r.text()}`);
  }

  async stop(): Promise<void> {
    await stopProcess(this.process);
    await this.wipe();
  }
}
