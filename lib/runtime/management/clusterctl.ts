/**
 * The clusterctl binary the management commands run: given by flag, by CAPI_OPENSTACK_CLUSTERCTL,
 * or found on PATH; its minor must be the environment's Cluster API minor (the move format and the
 * contract checks follow it). It runs with a private, empty HOME and config directory and
 * without its release check: the user's `~/.cluster-api` (clusterctl.yaml, overrides), which can
 * redirect provider URLs and images, is never read, so only the configuration passed counts.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CLUSTERCTL_DOWNLOAD, PinnedDownload } from '../../config/downloads';
import { verifiedClusterctl } from './clusterctl-download';

export class ClusterctlError extends Error {}

export interface ClusterctlResult {
  readonly code: number | null;
  readonly output: string;
}

export class Clusterctl {
  private constructor(
    public readonly binary: string,
    public readonly version: string,
  ) {}

  /**
   * Finds the binary (given, else CAPI_OPENSTACK_CLUSTERCTL, else PATH, else the verified download
   * of `pin` when it has the same minor) and checks its version against `clusterApiVersion`.
   */
  static async locate(explicit: string | undefined, env: NodeJS.ProcessEnv, clusterApiVersion: string, pin: PinnedDownload = CLUSTERCTL_DOWNLOAD, progress: (line: string) => void = () => undefined): Promise<Clusterctl> {
    let binary = explicit ?? env.CAPI_OPENSTACK_CLUSTERCTL ?? 'clusterctl';
    let source = explicit ? '--clusterctl' : env.CAPI_OPENSTACK_CLUSTERCTL ? 'CAPI_OPENSTACK_CLUSTERCTL' : 'PATH';
    if (source === 'PATH' && !onPath('clusterctl', env) && minor(pin.version) === minor(clusterApiVersion)) {
      try {
        binary = await verifiedClusterctl(env, pin, progress);
      } catch (e) {
        throw new ClusterctlError((e as Error).message);
      }
      source = `the verified download of ${pin.version}`;
    }
    const home = privateHome();
    const r = spawnSync(binary, ['version', '-o', 'short'], { encoding: 'utf8', env: clusterctlEnv(env, home), timeout: 30_000 });
    fs.rmSync(home, { recursive: true, force: true });
    if (r.error) {
      throw new ClusterctlError(`cannot run clusterctl (${binary}, from ${source}): ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}; install clusterctl ${minor(clusterApiVersion)}.x (docs/day-2.md) or give its path with --clusterctl`);
    }
    const version = (r.stdout ?? '').trim();
    if (r.status !== 0 || !/^v\d+\.\d+\.\d+/.test(version)) throw new ClusterctlError(`${binary} version -o short: expected a version like ${clusterApiVersion}, found "${`${version} ${r.stderr ?? ''}`.trim().slice(0, 200)}"`);
    if (minor(version) !== minor(clusterApiVersion)) {
      throw new ClusterctlError(`${binary} is clusterctl ${version}, but the management cluster runs Cluster API ${clusterApiVersion}: expected clusterctl ${minor(clusterApiVersion)}.x`);
    }
    return new Clusterctl(binary, version);
  }

  /** Runs clusterctl; `progress` gets each output line. */
  run(args: readonly string[], env: NodeJS.ProcessEnv, progress: (line: string) => void): Promise<ClusterctlResult> {
    const home = privateHome();
    const child = spawn(this.binary, args, { env: clusterctlEnv(env, home), stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    let partial = '';
    const onData = (d: Buffer) => {
      const text = partial + d.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) {
        chunks.push(l);
        if (l.trim()) progress(l);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    return new Promise((resolve) => {
      child.once('error', (e) => resolve({ code: null, output: e.message }));
      child.once('close', (code) => {
        if (partial) chunks.push(partial);
        fs.rmSync(home, { recursive: true, force: true });
        resolve({ code, output: chunks.join('\n') });
      });
    });
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, name)));
}

function minor(version: string): string {
  return version.replace(/^(v\d+\.\d+).*$/, '$1');
}

function privateHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-clusterctl-'));
}

/**
 * PATH and nothing of the user's: clusterctl reads `$XDG_CONFIG_HOME/cluster-api` and
 * `$HOME/.cluster-api` (its configuration and its overrides folder) and takes configuration
 * variables from the environment, so both homes are the private `home` and no other variable passes.
 */
function clusterctlEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  return { PATH: env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' };
}
