/** `manifests <env>`: the provider manifests the management VM installs, and their checksums. */
import { loadEnvironmentFile } from '../../../config/load';
import { manifestSources, manifestVersions, ManifestSource } from '../../../config/provider-manifests';
import { httpRequest } from '../../http';
import { sha256Hex } from '../../state/sigv4';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, environmentFile, loadName } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { renderTable } from '../footprint/table';

/** Bound of one download; the largest file (cert-manager.yaml) is a few MB. */
const FETCH_TIMEOUT_MS = 120_000;

export const manifestsSpec: CommandSpec = {
  name: 'manifests',
  usage: '<env>',
  summary: 'List the provider manifests the management VM installs (Cluster API providers, ORC, cert-manager); --fetch computes their SHA-256 for management.providerManifests.',
  details: [
    'Without --fetch: file, URL and pinned SHA-256 of each, for the versions of the environment. With --fetch: downloads each file, prints its SHA-256 as the YAML block to put under management.providerManifests, and when the environment pins them, compares (exit 1 on any mismatch).',
    'Run --fetch where the release assets (or your mirror) are reachable and you trust the connection: what it prints is what the VM will accept. --base-url reads from a mirror laid out as <url>/<label>/<version>/<file> instead (default: management.providerManifests.baseUrl, else GitHub).',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'fetch', description: 'Download each file and print its SHA-256.' },
    { name: 'base-url', value: '<url>', description: 'Mirror to read from instead of the pinned baseUrl or GitHub.' },
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['capi-openstack manifests prod', 'capi-openstack manifests prod --fetch', 'capi-openstack manifests prod --fetch --base-url https://mirror.example.com/capi'],
};

export async function runManifests(args: ParsedArgs, io: CliIo): Promise<number> {
  const file = environmentFile(io.cwd, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, args.positionals[0]);
  const env = loadEnvironmentFile(loadName(io.cwd, file));
  const pinned = env.spec.management.providerManifests;
  const baseUrl = stringOption(args, 'base-url') ?? pinned?.baseUrl;
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl)) throw new CliError(`--base-url: expected an http(s) URL, found "${baseUrl.slice(0, 80)}"`);
  const sources = manifestSources(manifestVersions(env.spec), baseUrl);
  const pins: Readonly<Record<string, string>> = pinned?.sha256 ?? {};
  if (args.options.fetch !== true) {
    const rows = sources.map((s) => [s.key, s.path, s.url, pins[s.key] ?? '-']);
    io.out(renderTable([{ title: 'KEY' }, { title: 'FILE' }, { title: 'URL' }, { title: 'SHA-256 (pinned)' }], rows, []));
    if (!pinned) io.out('\nNot pinned: clusterctl fetches these unverified. `capi-openstack manifests <env> --fetch` prints the block to pin them.');
    return 0;
  }
  const served: Record<string, string> = {};
  for (const s of sources) {
    io.err(`fetching ${s.url}`);
    served[s.key] = await sha256Of(s);
  }
  io.out(['management:', '  providerManifests:', ...(baseUrl ? [`    baseUrl: ${baseUrl}`] : []), '    sha256:', ...sources.map((s) => `      ${s.key}: "${served[s.key]}"`)].join('\n'));
  if (!pinned) return 0;
  const mismatches = sources.filter((s) => pins[s.key] !== served[s.key]);
  for (const s of mismatches) io.err(`MISMATCH ${s.key} (${s.url}): pinned ${pins[s.key]}, served ${served[s.key]}`);
  if (mismatches.length > 0) return 1;
  io.err(`all ${sources.length} files match the pinned checksums`);
  return 0;
}

/** GitHub serves release assets through redirects; at most this many are followed. */
const MAX_REDIRECTS = 5;

async function sha256Of(source: ManifestSource): Promise<string> {
  let url = source.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let res;
    try {
      res = await httpRequest({ method: 'GET', url, timeoutMs: FETCH_TIMEOUT_MS });
    } catch (e) {
      throw new CliError(`${source.key}: ${(e as Error).message}`);
    }
    const location = res.headers.location;
    if ([301, 302, 303, 307, 308].includes(res.status) && location) {
      const next = new URL(location, url);
      if (new URL(url).protocol === 'https:' && next.protocol !== 'https:') throw new CliError(`${source.key}: ${url} redirects to ${next.protocol} (refused: no downgrade from https)`);
      url = next.toString();
      continue;
    }
    if (res.status !== 200) throw new CliError(`${source.key}: ${url} answered HTTP ${res.status}`);
    return sha256Hex(res.text);
  }
  throw new CliError(`${source.key}: more than ${MAX_REDIRECTS} redirects from ${source.url}`);
}
