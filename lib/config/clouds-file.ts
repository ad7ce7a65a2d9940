/**
 * The one clouds.yaml reader: finds an entry the way OpenStack clients (and the Terraform OpenStack
 * provider) do. Synthesis takes only its non-secret parts (auth URL, region, CA file, interface);
 * the runtime's destroy-time cleanup builds its login from the whole entry (lib/runtime).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { LineCounter, parseDocument } from 'yaml';
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from './bounded-file';
import { escapeControlCharacters } from './control-characters';
import { MAX_ALIAS_USES, tooDeep, unsafeYaml } from './yaml-safety';

/** A clouds.yaml (or secure.yaml) that cannot be read. */
export class CloudsFileError extends Error {}

export interface CloudEntry {
  readonly file: string;
  readonly authUrl?: string;
  readonly region?: string;
  readonly caCertificateFile?: string;
  readonly interface?: string;
  /** The project the entry logs in to, as written (`id:<id>` or `name:<name>@<domain>`); undefined for application credentials. */
  readonly project?: string;
}

/** Where a lookup searches. */
export interface CloudsSearch {
  /** Only this file. @default the clients' search order */
  readonly file?: string;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Where ./clouds.yaml is looked for. @default process.cwd() */
  readonly cwd?: string;
}

/** A found entry: the file and the entry as written. */
export interface LocatedCloud {
  readonly file: string;
  readonly entry: Record<string, any>;
}

/** The places OpenStack clients look for clouds.yaml, in their order. */
export function cloudsFileCandidates(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  return candidates(env.OS_CLIENT_CONFIG_FILE, 'clouds.yaml', cwd);
}

/** The places they look for secure.yaml (secrets kept apart from clouds.yaml). */
export function secureFileCandidates(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  return candidates(env.OS_CLIENT_SECURE_FILE, 'secure.yaml', cwd);
}

function candidates(fromEnv: string | undefined, name: string, cwd: string): string[] {
  return [fromEnv, path.join(cwd, name), path.join(os.homedir(), '.config', 'openstack', name), `/etc/openstack/${name}`].filter((p): p is string => !!p);
}

/**
 * The `clouds:` map of a file, read with the CA files' guards (a regular file of at most
 * {@link MAX_SETTINGS_FILE_BYTES}: a directory, /dev/zero or a FIFO is named, not read) and parsed
 * with the environment files' YAML limits (bounded aliases and nesting, no prototype keys,
 * duplicate keys found with a set per mapping, not the parser's pairwise check); any problem is a
 * CloudsFileError naming the file and line.
 */
export function readCloudsFile(file: string): Record<string, any> | undefined {
  const read = readBoundedFile(file, 'clouds.yaml', MAX_SETTINGS_FILE_BYTES);
  if ('problem' in read) throw new CloudsFileError(read.problem);
  let data: any;
  try {
    const counter = new LineCounter();
    const doc = parseDocument(read.bytes.toString('utf8'), { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
    const [syntax] = doc.errors;
    if (syntax) throw new Error(`line ${counter.linePos(syntax.pos[0]).line}: ${syntax.message.split('\n')[0]}`);
    const deep = tooDeep(doc, counter);
    if (deep) throw new Error(`line ${deep.line ?? 1}: ${deep.message}`);
    const [unsafe] = unsafeYaml(doc, counter);
    if (unsafe) throw new Error(`line ${unsafe.line ?? 1}: ${unsafe.message}`);
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_USES });
  } catch (e) {
    const message = escapeControlCharacters((e as Error).message);
    throw new CloudsFileError(`${escapeControlCharacters(file)} cannot be read as YAML: ${message.length > 200 ? `${message.slice(0, 197)}...` : message}`);
  }
  const clouds = data && typeof data === 'object' ? data.clouds : undefined;
  return clouds && typeof clouds === 'object' && !Array.isArray(clouds) ? clouds : undefined;
}

/** `cloudName` in the first of `files` that has it. */
export function locateCloud(cloudName: string, files: readonly string[]): LocatedCloud | undefined {
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const entry = readCloudsFile(file)?.[cloudName];
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) return { file, entry };
  }
  return undefined;
}

/** The non-secret parts of `cloudName` in the first clouds.yaml that has it; undefined when none does. */
export function findCloudEntry(cloudName: string, explicitFile?: string): CloudEntry | undefined {
  const found = locateCloud(cloudName, explicitFile ? [explicitFile] : cloudsFileCandidates());
  if (!found) return undefined;
  const { file, entry } = found;
  const auth = (entry.auth ?? {}) as Record<string, unknown>;
  const cacert = typeof entry.cacert === 'string' ? entry.cacert : undefined;
  return {
    file,
    authUrl: typeof auth.auth_url === 'string' ? auth.auth_url : undefined,
    region: typeof entry.region_name === 'string' ? entry.region_name : undefined,
    caCertificateFile: cacert ? path.resolve(path.dirname(file), cacert) : undefined,
    interface: typeof entry.interface === 'string' ? entry.interface : undefined,
    project: projectOf(auth),
  };
}

function projectOf(auth: Record<string, unknown>): string | undefined {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const id = text(auth.project_id) ?? text(auth.tenant_id);
  if (id) return `id:${id}`;
  const name = text(auth.project_name) ?? text(auth.tenant_name);
  const domain = text(auth.project_domain_id) ?? text(auth.project_domain_name) ?? text(auth.domain_id) ?? text(auth.domain_name) ?? 'Default';
  return name ? `name:${name}@${domain}` : undefined;
}
