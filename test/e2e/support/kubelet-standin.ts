/**
 * The kubelet of every simulated node of one workload cluster, as far as the API server's
 * pods/portforward needs one: local-kube's `kubelet-standin` on a loopback port, serving with a
 * certificate of the cluster CA and accepting the API server's kubelet client certificate of that
 * CA. Nodes point at it (InternalIP 127.0.0.1, daemonEndpoints.kubeletEndpoint.Port); each pod it
 * serves maps to a local address in a JSON file that it re-reads per request.
 */
import { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CertFiles, issueCertificate } from './local-pki';
import { freePort, startLogged, stopProcess, tlsRequest } from './local-process';
import { waitFor } from './workload-kube';

export class KubeletStandin {
  private readonly pods = new Map<string, string>();
  private process?: ChildProcess;
  port = 0;

  private constructor(
    private readonly dir: string,
    private readonly ca: CertFiles,
  ) {}

  private get mapFile(): string {
    return path.join(this.dir, 'kubelet-standin-pods.json');
  }

  /** Starts the stand-in; resolves once it answers. */
  static async start(binDir: string, dir: string, ca: CertFiles): Promise<KubeletStandin> {
    const s = new KubeletStandin(dir, ca);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    s.writeMap();
    const serving = issueCertificate(dir, 'kubelet-standin', ca, '/CN=kubelet-standin', 'server');
    const probe = issueCertificate(dir, 'kubelet-standin-probe', ca, '/CN=kubelet-standin-probe', 'client');
    s.port = await freePort();
    const log = path.join(dir, 'kubelet-standin.log');
    s.process = startLogged(path.join(binDir, 'kubelet-standin'), [
      `--listen=127.0.0.1:${s.port}`,
      `--tls-cert-file=${serving.cert}`,
      `--tls-private-key-file=${serving.key}`,
      `--client-ca-file=${ca.cert}`,
      `--pod-map=${s.mapFile}`,
    ], log);
    await waitFor(`the kubelet stand-in on 127.0.0.1:${s.port}`, 30_000, async () => {
      if (s.process?.exitCode !== null) throw new Error(`kubelet-standin exited (${s.process?.exitCode}); see ${log}`);
      const r = await tlsRequest(`https://127.0.0.1:${s.port}/healthz`, { ca: ca.cert, client: probe }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    }, 200);
    return s;
  }

  /**
   * The kube-apiserver flags that send pods/portforward here: the Node address type the stand-in
   * is registered under, its CA, and a kubelet client certificate of the cluster CA.
   */
  apiServerFlags(): string[] {
    const client = issueCertificate(this.dir, 'apiserver-kubelet-client', this.ca, '/O=kubeadm:cluster-admins/CN=kube-apiserver-kubelet-client', 'client');
    return [
      '--kubelet-preferred-address-types=InternalIP',
      `--kubelet-certificate-authority=${this.ca.cert}`,
      `--kubelet-client-certificate=${client.cert}`,
      `--kubelet-client-key=${client.key}`,
    ];
  }

  /** What a Node's status says so that the API server reaches this stand-in as its kubelet. */
  nodeStatus(): { addresses: { type: string; address: string }[]; daemonEndpoints: { kubeletEndpoint: { Port: number } } } {
    return { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: this.port } } };
  }

  /** Forwards `namespace/pod` to address (host:port); undefined stops forwarding it. */
  setPod(pod: string, address: string | undefined): void {
    if (address === undefined) this.pods.delete(pod);
    else this.pods.set(pod, address);
    this.writeMap();
  }

  private writeMap(): void {
    const tmp = `${this.mapFile}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.pods)));
    fs.renameSync(tmp, this.mapFile); // the stand-in never reads half a file
  }

  async stop(): Promise<void> {
    await stopProcess(this.process);
  }
}
