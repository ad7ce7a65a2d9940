/**
 * The test seam of the bootstrap e2e: the local cloud's fake hypervisor boots nothing, so this
 * plays the hypervisor for one server. It watches Nova (as the cloud's admin, who may read a
 * server's user data) for the management server, and once the server is ACTIVE and its floating IP
 * is associated, boots the VM's stand-in (scripts/local-vm/standin-up) with the server's user data,
 * unchanged, as cloud-init's NoCloud seed, at the floating IP on the stand-in network (the local
 * cloud's public range, 172.30.251.0/24). When the server is deleted, the stand-in goes too.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { LOCAL_VM, localVmDockerHost, PollLoop, runLocalVm, testDocker, writeNoCloudSeed } from './hypervisor-kit';
import { OpenStackApi } from './openstack-api';

export { localVmDockerHost };
export const STANDIN_NAME = 'lvm-vm';

export interface StandinSite {
  readonly standinImage: string;
}

export interface Booted {
  readonly serverId: string;
  readonly address: string;
  /** Epoch ms when the stand-in was started. */
  readonly at: number;
}

export class StandinHypervisor {
  private readonly loop = new PollLoop(() => this.step());
  booted: Booted | undefined;
  removedAt: number | undefined;

  constructor(
    private readonly admin: OpenStackApi,
    private readonly serverName: string,
    private readonly site: StandinSite,
    private readonly workDir: string,
    private readonly dockerHost: string,
    private readonly log: (line: string) => void,
  ) {}

  get lastError(): string | undefined {
    return this.loop.lastError;
  }

  start(intervalMs = 2000): void {
    this.loop.start(intervalMs);
  }

  /** Stops watching and removes the stand-in. */
  stop(): void {
    void this.loop.stop();
    this.remove();
  }

  private async step(): Promise<void> {
    const servers = (await this.admin.compute<{ servers: any[] }>(`/servers/detail?all_tenants=1&name=${encodeURIComponent(`^${this.serverName}$`)}`, '2.3')).servers;
    const server = servers.find((s) => s.name === this.serverName);
    if (this.booted) {
      if (!server || server.id !== this.booted.serverId) {
        this.log(`server ${this.serverName} is gone: removing the stand-in`);
        this.remove();
        this.booted = undefined;
        this.removedAt = Date.now();
      }
      return;
    }
    if (!server || server.status !== 'ACTIVE') return;
    const userData = server['OS-EXT-SRV-ATTR:user_data'] as string | undefined;
    if (!userData) throw new Error(`server ${server.id} has no user data (or the admin cannot read it)`);
    const ports = (await this.admin.network<{ ports: any[] }>(`/ports?device_id=${server.id}`)).ports;
    const fips = ports.length ? (await this.admin.network<{ floatingips: any[] }>(`/floatingips?port_id=${ports[0].id}`)).floatingips : [];
    if (fips.length === 0) return; // associated a moment after the server is ACTIVE
    const address = fips[0].floating_ip_address as string;
    const seed = path.join(this.workDir, 'seed');
    const bytes = writeNoCloudSeed(seed, userData, server.id, this.serverName);
    this.remove();
    this.log(`server ${server.id} ACTIVE with ${address}: booting the stand-in with its user data (${bytes} bytes)`);
    const at = Date.now();
    const up = spawnSync(path.join(LOCAL_VM, 'standin-up'), [STANDIN_NAME, this.site.standinImage, seed], {
      encoding: 'utf8',
      timeout: 180_000,
      // no LOCAL_VM_TRUST_CA: the site's CA reaches the stand-in through the user data, as on a VM
      env: { ...process.env, DOCKER_HOST: this.dockerHost, LOCAL_VM_STANDIN_IP: address },
    });
    if (up.status !== 0) throw new Error(`standin-up failed (${up.status}): ${up.stderr.slice(-1500)}`);
    this.booted = { serverId: server.id, address, at };
  }

  private remove(): void {
    testDocker(this.dockerHost, ['rm', '-f', '-v', STANDIN_NAME]);
  }
}

/** Runs a command in the stand-in (docker exec). */
export function inStandin(dockerHost: string, argv: readonly string[], timeoutMs = 120_000): { code: number | null; out: string } {
  const r = spawnSync('docker', ['exec', STANDIN_NAME, ...argv], { env: { ...process.env, DOCKER_HOST: dockerHost }, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** Runs a scripts/local-vm program against the stand-in. */
export function localVm(dockerHost: string, program: string, args: readonly string[], timeoutMs = 300_000): { code: number | null; out: string } {
  return runLocalVm(dockerHost, program, args, { LOCAL_VM_STANDIN_NAME: STANDIN_NAME }, timeoutMs);
}
