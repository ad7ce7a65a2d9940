/**
 * What the e2e suites' stand-in hypervisors share (support/standin-hypervisor.ts boots the
 * management server, support/workload-hypervisor.ts the servers of a workload cluster): a polling
 * loop that never overlaps itself, the NoCloud seed made from a server's user data, and calls of
 * the scripts/local-vm programs on the test dockerd.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ROOT } from './workload-process';

export const LOCAL_VM = path.join(ROOT, 'scripts', 'local-vm');

/** The test dockerd's socket (scripts/local-vm/lib.sh). */
export function localVmDockerHost(cacheDir: string): string {
  return `unix://${path.join(cacheDir, 'local-vm-docker', 'run', 'docker.sock')}`;
}

/** Calls `step` every `intervalMs` (never two at once) until stopped; keeps the last error. */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private stopped = false;
  lastError: string | undefined;

  constructor(private readonly step: () => Promise<void>) {}

  start(intervalMs = 2000): void {
    const tick = async () => {
      if (this.stopped) return;
      if (!this.busy) {
        this.busy = true;
        try {
          await this.step();
          this.lastError = undefined;
        } catch (e) {
          this.lastError = (e as Error).message;
        } finally {
          this.busy = false;
        }
      }
      if (!this.stopped) this.timer = setTimeout(tick, intervalMs);
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops polling; resolves once a step in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Writes cloud-init's NoCloud seed into `dir` (emptied first): the server's user data as Nova
 * holds it (base64), unchanged, and meta-data naming the instance and host as a real cloud's
 * metadata service would. Returns the user data's size in bytes.
 */
export function writeNoCloudSeed(dir: string, userDataBase64: string, instanceId: string, hostname: string): number {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const userData = Buffer.from(userDataBase64, 'base64');
  fs.writeFileSync(path.join(dir, 'user-data'), userData);
  fs.writeFileSync(path.join(dir, 'meta-data'), `instance-id: ${instanceId}\nlocal-hostname: ${hostname}\n`);
  return userData.length;
}

/** Runs a scripts/local-vm program on the test dockerd; the output is stdout and stderr together. */
export function runLocalVm(dockerHost: string, program: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): { code: number | null; out: string } {
  const r = spawnSync(path.join(LOCAL_VM, program), args, {
    env: { ...process.env, ...env, DOCKER_HOST: dockerHost },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

/** `docker <args>` on the test dockerd. */
export function testDocker(dockerHost: string, args: readonly string[], timeoutMs = 120_000): { code: number | null; out: string } {
  const r = spawnSync('docker', args, { env: { ...process.env, DOCKER_HOST: dockerHost }, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
