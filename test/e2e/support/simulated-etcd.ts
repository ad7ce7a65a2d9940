/**
 * The etcd members a workload cluster's control-plane nodes would run, as real etcd processes on
 * loopback (local-kube's etcd binary), so that KCP's etcd checks (member list, status, alarms,
 * leader moves, member removal) talk to a real etcd cluster:
 *
 * - each member is named after its Node (KCP matches members to Nodes by name), serves its client
 *   URL over TLS with a certificate of the cluster's etcd CA and requires client certificates of
 *   that CA (KCP signs its own); peers talk plain HTTP on loopback;
 * - the first member bootstraps the cluster; later ones are added first (`member add`, as
 *   `kubeadm join` does) and then start with `--initial-cluster-state=existing`.
 */
import { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CertFiles, issueCertificate } from './local-pki';
import { freePort, startLogged, stopProcess, TlsClient, tlsRequest } from './local-process';
import { waitFor } from './workload-kube';

export interface SimulatedEtcdOptions {
  /** Directory with local-kube's `etcd` binary. */
  readonly binDir: string;
  /** Certificates, data directories and logs go under here. */
  readonly dir: string;
  /** The cluster's etcd CA (Secret `<cluster>-etcd`). */
  readonly ca: CertFiles;
  /** --initial-cluster-token: one per simulated cluster. */
  readonly token: string;
  readonly log: (line: string) => void;
}

/** A member as etcd's v3 JSON gateway lists it. */
export interface EtcdMember {
  readonly ID: string;
  readonly name: string;
  readonly peerURLs: string[];
  readonly clientURLs?: string[];
}

interface RunningMember {
  readonly process: ChildProcess;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
}

export class SimulatedEtcd {
  private readonly running = new Map<string, RunningMember>();
  /** The simulation's own client certificate (member add/list). */
  readonly tls: TlsClient;

  constructor(private readonly o: SimulatedEtcdOptions) {
    fs.mkdirSync(o.dir, { recursive: true, mode: 0o700 });
    this.tls = { ca: o.ca.cert, client: issueCertificate(o.dir, 'simulation-client', o.ca, '/CN=simulated-workload', 'client') };
  }

  /** Names of the members whose process runs. */
  names(): string[] {
    return [...this.running.keys()];
  }

  /** host:port of a running member's client URL (what the kubelet stand-in forwards to). */
  clientAddress(name: string): string | undefined {
    const m = this.running.get(name);
    return m && new URL(m.clientUrl).host;
  }

  /** The cluster's members, asked of the running members in turn (a removed one shuts itself down). */
  async members(): Promise<EtcdMember[]> {
    let last: Error | undefined;
    for (const m of this.running.values()) {
      try {
        return (await this.call(m.clientUrl, '/v3/cluster/member/list', {})).members ?? [];
      } catch (e) {
        last = e as Error;
      }
    }
    if (last) throw last;
    return [];
  }

  /** Starts the member `name` (adding it to the cluster first unless it is the first); its client URL. */
  async addMember(name: string): Promise<string> {
    const existing = this.running.get(name);
    if (existing) return existing.clientUrl;
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const clientUrl = `https://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    let initialCluster = `${name}=${peerUrl}`;
    const [first] = this.running.values();
    if (first) {
      const added = await this.call(first.clientUrl, '/v3/cluster/member/add', { peerURLs: [peerUrl] });
      initialCluster = (added.members as EtcdMember[])
        .map((m) => `${m.peerURLs.includes(peerUrl) ? name : m.name}=${m.peerURLs[0]}`)
        .join(',');
    }
    const serving = issueCertificate(this.o.dir, `member-${name}`, this.o.ca, `/CN=${name}`, 'server+client');
    const dataDir = path.join(this.o.dir, `member-${name}.data`);
    fs.rmSync(dataDir, { recursive: true, force: true });
    const process = startLogged(path.join(this.o.binDir, 'etcd'), [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-state=${first ? 'existing' : 'new'}`,
      `--initial-cluster-token=${this.o.token}`,
      '--client-cert-auth',
      `--trusted-ca-file=${this.o.ca.cert}`,
      `--cert-file=${serving.cert}`,
      `--key-file=${serving.key}`,
      '--log-level=warn',
    ], path.join(this.o.dir, `member-${name}.log`));
    const member = { process, clientUrl, peerUrl, dataDir };
    this.running.set(name, member);
    await waitFor(`etcd member ${name} (${clientUrl}) to be healthy`, 60_000, async () => {
      if (process.exitCode !== null) throw new Error(`etcd member ${name} exited (${process.exitCode}); see ${path.join(this.o.dir, `member-${name}.log`)}`);
      const r = await tlsRequest(`${clientUrl}/health`, this.tls).catch(() => undefined);
      return r?.status === 200 && JSON.parse(r.text).health === 'true' ? true : undefined;
    }, 500);
    this.o.log(`etcd member ${name}: ${clientUrl} (${first ? 'joined' : 'bootstrapped'} ${this.o.token})`);
    return clientUrl;
  }

  /** Stops the member's process and deletes its data (its membership is for KCP to change). */
  async stopMember(name: string): Promise<void> {
    const m = this.running.get(name);
    if (!m) return;
    this.running.delete(name);
    await stopProcess(m.process);
    fs.rmSync(m.dataDir, { recursive: true, force: true });
    this.o.log(`etcd member ${name} stopped`);
  }

  /** Running members that the cluster no longer lists (KCP removed them). */
  async removedMembers(): Promise<string[]> {
    if (this.running.size === 0) return [];
    const listed = new Set((await this.members()).flatMap((m) => m.peerURLs));
    return [...this.running].filter(([, m]) => !listed.has(m.peerUrl)).map(([name]) => name);
  }

  async stop(): Promise<void> {
    for (const name of this.names()) await this.stopMember(name);
  }

  private async call(clientUrl: string, route: string, body: unknown): Promise<any> {
    const r = await tlsRequest(`${clientUrl}${route}`, this.tls, 'POST', body);
    if (r.status !== 200) throw new Error(`etcd ${route} at ${clientUrl}: ${r.status} ${r.text.slice(0, 300)}`);
    return JSON.parse(r.text);
  }
}
