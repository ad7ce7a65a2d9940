/**
 * One provider manifest downloaded as its bytes, the way `manifests --fetch` takes the checksums
 * and the controller upgrade fetches what it verifies: HTTPS release assets through GitHub's
 * redirects (a bounded number, never from https down to http), one bounded request each.
 */
import { createHash } from 'crypto';
import { httpRequest } from '../http';

export class ManifestDownloadError extends Error {}

/** Bound of one download; the largest file (cert-manager.yaml) is a few MB. */
const FETCH_TIMEOUT_MS = 120_000;

/** GitHub serves release assets through redirects; at most this many are followed. */
const MAX_REDIRECTS = 5;

/** The bytes at `url`; errors name `key` and the URL. */
export async function downloadManifest(key: string, url: string): Promise<Buffer> {
  let at = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res;
    try {
      res = await httpRequest({ method: 'GET', url: at, timeoutMs: FETCH_TIMEOUT_MS, headers: { accept: '*/*' } });
    } catch (e) {
      throw new ManifestDownloadError(`${key}: ${(e as Error).message}`);
    }
    const location = res.headers.location;
    if ([301, 302, 303, 307, 308].includes(res.status) && location) {
      const next = new URL(location, at);
      if (new URL(at).protocol === 'https:' && next.protocol !== 'https:') throw new ManifestDownloadError(`${key}: ${at} redirects to ${next.protocol} (refused: no downgrade from https)`);
      at = next.toString();
      continue;
    }
    if (res.status !== 200) throw new ManifestDownloadError(`${key}: ${at} answered HTTP ${res.status}`);
    return res.bytes;
  }
  throw new ManifestDownloadError(`${key}: more than ${MAX_REDIRECTS} redirects from ${url}`);
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
