/**
 * The verified clusterctl download: the release binary the project pins (version, URL, SHA-256,
 * the same pin as the management VM's), fetched once into the user's cache and checked against
 * its SHA-256 before it is made executable. Used when no clusterctl is given and none is on PATH.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { PinnedDownload } from '../../config/downloads';

export class DownloadError extends Error {}

/** Where a pinned binary is cached: `<cache>/capi-openstack-cdktf/clusterctl/<version>/clusterctl`. */
export function cachedClusterctlPath(env: NodeJS.ProcessEnv, pin: PinnedDownload): string {
  const root = env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? os.homedir(), '.cache'), 'capi-openstack-cdktf');
  return path.join(root, 'clusterctl', pin.version, 'clusterctl');
}

/** The cached binary, downloaded and verified first when it is not there (or does not match). */
export async function verifiedClusterctl(env: NodeJS.ProcessEnv, pin: PinnedDownload, progress: (line: string) => void): Promise<string> {
  const file = cachedClusterctlPath(env, pin);
  if (fs.existsSync(file) && sha256Of(fs.readFileSync(file)) === pin.sha256) return file;
  progress(`downloading clusterctl ${pin.version} from ${pin.url} (verified against its pinned SHA-256)`);
  let bytes: Buffer;
  try {
    const res = await fetch(pin.url, { signal: AbortSignal.timeout(10 * 60_000), redirect: 'follow' });
    if (!res.ok) throw new DownloadError(`HTTP ${res.status}`);
    bytes = Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new DownloadError(`downloading clusterctl ${pin.version} from ${pin.url} failed: ${(e as Error).message}; give a clusterctl with --clusterctl or CAPI_OPENSTACK_CLUSTERCTL`);
  }
  const got = sha256Of(bytes);
  if (got !== pin.sha256) throw new DownloadError(`clusterctl ${pin.version} from ${pin.url} has SHA-256 ${got}, expected ${pin.sha256}: not used`);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(`${file}.partial`, bytes, { mode: 0o755 });
  fs.renameSync(`${file}.partial`, file);
  return file;
}

function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
