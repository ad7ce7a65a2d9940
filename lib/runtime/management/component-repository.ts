/**
 * Where `clusterctl upgrade apply` takes the new components from. With pinned manifests
 * (`management.providerManifests`): a private local repository of exactly the pinned files, each
 * checked against its SHA-256 as the VM checks them at the first install (from their URLs, or from
 * a given local repository), and a clusterctl configuration naming it for every provider and for
 * cert-manager; a version that is not pinned, or a file that does not match, is refused before
 * anything changes. Without pins: a given local repository as it is, or the providers' releases,
 * both unverified, and said so.
 */
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { isSha256Hex } from '../../config/downloads';
import { CLUSTERCTL_PROVIDERS, MANIFEST_KEYS, ManifestDownload, PROVIDER_MANIFEST_FILES, UPGRADE_MANIFEST_KEYS } from '../../config/provider-manifests';
import { BackupError } from './backup-archive';
import { downloadManifest, sha256Hex } from './manifest-download';
import { UpgradeItem } from './upgrade-plan';

export interface ComponentSource {
  /** The pinned manifests; undefined when the environment pins none. */
  readonly pinned?: readonly ManifestDownload[];
  /** A local clusterctl repository: with pins, read instead of the URLs (and verified); without, used as it is. */
  readonly repository?: string;
}

/** A manifest file larger than this is refused (the largest, cert-manager.yaml, is a few MB). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/**
 * Prepares the components of `items` in `work` and returns the clusterctl configuration to pass
 * (`--config`), or undefined for clusterctl's defaults (the providers' releases).
 */
export async function prepareComponents(source: ComponentSource, items: readonly UpgradeItem[], work: string, progress: (line: string) => void): Promise<string | undefined> {
  if (source.pinned) return pinnedRepository(source.pinned, source.repository, items, work, progress);
  if (source.repository) {
    progress(`WARNING: the components come from ${source.repository} unverified (management.providerManifests pins none)`);
    return writeConfig(work, unpinnedEntries(path.resolve(source.repository)));
  }
  progress("WARNING: clusterctl downloads the components from the providers' GitHub releases without a checksum (management.providerManifests pins none)");
  return undefined;
}

async function pinnedRepository(pinned: readonly ManifestDownload[], local: string | undefined, items: readonly UpgradeItem[], work: string, progress: (line: string) => void): Promise<string> {
  const files = pinned.filter((m) => (UPGRADE_MANIFEST_KEYS as readonly string[]).includes(m.key));
  const unpinned = items.filter((i) => !files.some((m) => m.path.startsWith(`${i.repositoryLabel}/${i.version}/`)));
  if (unpinned.length > 0) {
    throw new BackupError(`${unpinned.map((i) => `${i.repositoryLabel} ${i.version}`).join(', ')}: not pinned in management.providerManifests (it pins ${[...new Set(files.map((m) => m.path.split('/').slice(0, 2).join(' ')))].join(', ')}); nothing was changed`);
  }
  const dir = path.join(work, 'repository');
  for (const m of files) {
    const bytes = local ? readLocal(path.resolve(local), m) : await downloadManifest(m.key, m.url);
    const got = sha256Hex(bytes);
    if (got !== m.sha256) {
      throw new BackupError(`${m.key} (${local ? path.join(path.resolve(local), m.path) : m.url}) has SHA-256 ${got}, pinned ${m.sha256}: not used, nothing was changed`);
    }
    fs.mkdirSync(path.dirname(path.join(dir, m.path)), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, m.path), bytes, { mode: 0o600 });
  }
  progress(`${files.length} pinned component files verified by their SHA-256 (from ${local ?? 'their URLs'})`);
  return writeConfig(work, pinnedEntries(dir, files));
}

function readLocal(root: string, m: ManifestDownload): Buffer {
  const file = path.join(root, m.path);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new BackupError(`${m.key}: ${file} does not exist (the repository must hold every pinned file); nothing was changed`);
  }
  // stat before open: a FIFO or a device is never opened
  if (!stat.isFile()) throw new BackupError(`${m.key}: ${file} is not a regular file; nothing was changed`);
  if (stat.size > MAX_MANIFEST_BYTES) throw new BackupError(`${m.key}: ${file} is larger than ${MAX_MANIFEST_BYTES} bytes; nothing was changed`);
  return fs.readFileSync(file);
}

interface ConfigEntries {
  readonly providers: readonly { readonly name: string; readonly url: string; readonly type: string }[];
  readonly certManager?: { readonly url: string; readonly version: string };
}

function pinnedEntries(dir: string, files: readonly ManifestDownload[]): ConfigEntries {
  const providers = files.flatMap((m) => {
    const p = CLUSTERCTL_PROVIDERS[m.path.split('/')[0]];
    return p && !m.path.endsWith('/metadata.yaml') ? [{ name: p.name, url: `file://${path.join(dir, m.path)}`, type: p.type }] : [];
  });
  const certManager = files.find((m) => m.key === 'certManager');
  return { providers, ...(certManager ? { certManager: { url: `file://${path.join(dir, certManager.path)}`, version: certManager.path.split('/')[1] } } : {}) };
}

/** Every provider at `latest` of an unchecked repository (clusterctl picks the version the item asks for). */
function unpinnedEntries(dir: string): ConfigEntries {
  if (!fs.existsSync(dir)) throw new BackupError(`--repository ${dir} does not exist`);
  const providers = PROVIDER_MANIFEST_FILES.filter((f) => CLUSTERCTL_PROVIDERS[f.label] && !f.file.endsWith('metadata.yaml')).map((f) => ({
    name: CLUSTERCTL_PROVIDERS[f.label].name,
    url: `file://${dir}/${f.label}/latest/${f.file}`,
    type: CLUSTERCTL_PROVIDERS[f.label].type,
  }));
  return { providers };
}

/** clusterctl's configuration: only these entries count (it runs with a private HOME, see Clusterctl). */
function writeConfig(work: string, entries: ConfigEntries): string {
  const config = { providers: entries.providers, ...(entries.certManager ? { 'cert-manager': entries.certManager } : {}) };
  const file = path.join(work, 'clusterctl.yaml');
  fs.writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}

/**
 * The pinned manifests as the management stack hands them to the upgrade (JSON in an environment
 * variable): every entry checked, so nothing unexpected reaches a URL, a path or clusterctl.
 */
export function parsePinnedManifests(text: string, name: string): ManifestDownload[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupError(`${name}: expected a JSON list of pinned manifests, found text that is not JSON`);
  }
  if (!Array.isArray(value)) throw new BackupError(`${name}: expected a JSON list of pinned manifests`);
  return value.map((v, i) => {
    const m = (v ?? {}) as Record<string, unknown>;
    const bad = (what: string) => new BackupError(`${name}[${i}]: expected ${what}, found ${JSON.stringify(v).slice(0, 120)}`);
    if (typeof m.key !== 'string' || !(MANIFEST_KEYS as readonly string[]).includes(m.key)) throw bad(`a key of ${MANIFEST_KEYS.join(', ')}`);
    const file = PROVIDER_MANIFEST_FILES.find((f) => f.key === m.key)!;
    if (typeof m.url !== 'string' || !/^https?:\/\/[^\s'"\\`$]+$/.test(m.url)) throw bad('an http(s) URL');
    if (typeof m.path !== 'string' || !new RegExp(`^${file.label}/v\\d+\\.\\d+\\.\\d+/${file.file.replace(/\./g, '\\.')}$`).test(m.path)) throw bad(`a path ${file.label}/<version>/${file.file}`);
    if (typeof m.sha256 !== 'string' || !isSha256Hex(m.sha256)) throw bad('a SHA-256 (64 lowercase hex characters)');
    return { key: m.key, url: m.url, path: m.path, sha256: m.sha256 };
  });
}
