/** `manifests <env>`: the provider manifests the management VM installs, and their checksums. */
import * as fs from 'fs';
import { parseDocument } from 'yaml';
import { EnvironmentConfigError } from '../../../config/errors';
import { loadEnvironmentFile, parseEnvironment } from '../../../config/load';
import { EnvironmentConfig } from '../../../config/resolve';
import { manifestSources, manifestVersions, ManifestSource } from '../../../config/provider-manifests';
import { downloadManifest, ManifestDownloadError, sha256Hex } from '../../management/manifest-download';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath, environmentFile, loadName, locateEnvironment, looksLikePath } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { renderTable } from '../footprint/table';

export const manifestsSpec: CommandSpec = {
  name: 'manifests',
  usage: '<env>',
  summary: 'List the provider manifests the management VM installs (Cluster API providers, ORC, cert-manager); --fetch computes their SHA-256 for management.providerManifests.',
  details: [
    'Without --fetch: file, URL and pinned SHA-256 of each, for the versions of the environment. With --fetch: downloads each file, prints its SHA-256 as the YAML block to put under management.providerManifests (with the versions the checksums are of), and when the environment pins them, compares (exit 1 on any mismatch).',
    'After a change of versions, fetch again and replace the block: validate refuses versions the pins are not of, and the controller upgrade installs pinned components only.',
    'Run --fetch where the release assets (or your mirror) are reachable and you trust the connection: what it prints is what the VM will accept. --base-url reads from a mirror laid out as <url>/<label>/<version>/<file> instead (default: management.providerManifests.baseUrl, else GitHub).',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'fetch', description: 'Download each file and print its SHA-256.' },
    { name: 'base-url', value: '<url>', description: 'Mirror to read from instead of the pinned baseUrl or GitHub.' },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['capi-openstack manifests prod', 'capi-openstack manifests prod --fetch', 'capi-openstack manifests prod --fetch --base-url https://mirror.example.com/capi'],
};

export async function runManifests(args: ParsedArgs, io: CliIo): Promise<number> {
  const { env, stalePins } = manifestsEnvironment(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, args.positionals[0], CdktfProject.of(args, io));
  const pinned = env.spec.management.providerManifests;
  const baseUrl = stringOption(args, 'base-url') ?? pinned?.baseUrl;
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl)) throw new CliError(`--base-url: expected an http(s) URL, found "${baseUrl.slice(0, 80)}"`);
  const sources = manifestSources(manifestVersions(env.spec), baseUrl);
  const pins: Readonly<Record<string, string>> = pinned?.sha256 ?? {};
  if (args.options.fetch !== true) {
    const rows = sources.map((s) => [s.key, s.path, s.url, pins[s.key] ?? '-']);
    io.out(renderTable([{ title: 'KEY' }, { title: 'FILE' }, { title: 'URL' }, { title: 'SHA-256 (pinned)' }], rows, []));
    if (!pinned) io.out('\nNot pinned: clusterctl fetches these unverified. `capi-openstack manifests <env> --fetch` prints the block to pin them.');
    if (stalePins) io.out(`\nThe pinned checksums are of ${stalePins}, not of these versions: \`capi-openstack manifests <env> --fetch\` prints the block to replace them with.`);
    return 0;
  }
  const served: Record<string, string> = {};
  for (const s of sources) {
    io.err(`fetching ${s.url}`);
    served[s.key] = await sha256Of(s);
  }
  const v = env.spec.versions;
  const certManager = pinned?.certManagerVersion;
  io.out(
    [
      'management:',
      '  providerManifests:',
      ...(baseUrl ? [`    baseUrl: ${baseUrl}`] : []),
      ...(certManager ? [`    certManagerVersion: ${certManager}`] : []),
      '    versions:',
      `      clusterApi: ${v.clusterApi}`,
      `      capo: ${v.capo}`,
      `      caaph: ${v.caaph}`,
      '    sha256:',
      ...sources.map((s) => `      ${s.key}: "${served[s.key]}"`),
    ].join('\n'),
  );
  if (!pinned) return 0;
  if (stalePins) {
    io.err(`the block in ${displayPath(io.cwd, env.file)} pins ${stalePins}, not the versions of the environment: replace it with the one above`);
    return 0;
  }
  const mismatches = sources.filter((s) => pins[s.key] !== served[s.key]);
  for (const s of mismatches) io.err(`MISMATCH ${s.key} (${s.url}): pinned ${pins[s.key]}, served ${served[s.key]}`);
  if (mismatches.length > 0) return 1;
  io.err(`all ${sources.length} files match the pinned checksums`);
  return 0;
}

/** An environment file (with stale pins allowed, below), else the environment the app recorded under that name. */
function manifestsEnvironment(io: CliIo, dir: string, arg: string, project: CdktfProject): { env: EnvironmentConfig; stalePins?: string } {
  let file: string | undefined;
  try {
    file = environmentFile(io.cwd, dir, arg);
  } catch (e) {
    if (looksLikePath(arg)) throw e;
  }
  return file ? loadWithStalePins(loadName(io.cwd, file)) : { env: locateEnvironment(io, dir, arg, project).config };
}

/**
 * The environment, also when its pins are of other versions than `versions` (which validate
 * refuses): after a version bump, this command is how the new block is made. Any other problem
 * is reported as always.
 */
function loadWithStalePins(file: string): { env: EnvironmentConfig; stalePins?: string } {
  try {
    return { env: loadEnvironmentFile(file) };
  } catch (e) {
    if (!(e instanceof EnvironmentConfigError) || !e.issues.every((i) => i.path.startsWith('management.providerManifests.versions.'))) throw e;
    const text = fs.readFileSync(file, 'utf8');
    const doc = parseDocument(text);
    const pins = ['management', 'providerManifests', 'versions'];
    const stale = doc.getIn(pins) as { toJSON(): Record<string, string> };
    const unpinned = parseDocument(text);
    unpinned.deleteIn(['management', 'providerManifests']);
    const v = parseEnvironment(unpinned.toString(), file).spec.versions;
    doc.setIn(pins, doc.createNode({ clusterApi: v.clusterApi, capo: v.capo, caaph: v.caaph }));
    const was = stale.toJSON();
    return { env: parseEnvironment(doc.toString(), file), stalePins: `Cluster API ${was.clusterApi}, CAPO ${was.capo}, CAAPH ${was.caaph}` };
  }
}

async function sha256Of(source: ManifestSource): Promise<string> {
  try {
    return sha256Hex(await downloadManifest(source.key, source.url));
  } catch (e) {
    if (e instanceof ManifestDownloadError) throw new CliError(e.message);
    throw e;
  }
}
