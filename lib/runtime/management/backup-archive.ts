/**
 * The backup file of a management cluster: Cluster API's own move format (one file per object, as
 * `clusterctl move --to-directory` writes them) for each namespace that holds clusters, packed into
 * one gzip'd JSON document and encrypted with AES-256-GCM under a key derived (scrypt) from the
 * operator's passphrase.
 *
 * Layout (capi-openstack-backup/v2): one line of JSON (the header: format, environment, time,
 * clusters, counts; the scrypt parameters and salt; the IV), a newline, the ciphertext, and the
 * 16-byte GCM tag. The header line, byte for byte and with its newline, is the GCM additional
 * data: it can be read without the key, for listings, and a changed byte in it is refused like a
 * changed byte of the ciphertext. The previous format (v1) kept the header outside the tag; such a
 * file is opened only on request, with its environment and clusters taken from its content.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import { gunzipSync, gzipSync } from 'zlib';
import { BackupError, describeBackupValue } from './backup-error';
import { BACKUP_FORMAT, BackupHeader, LEGACY_BACKUP_FORMAT, parseBackupHeader } from './backup-header';
import { checkScryptParameters, deriveBackupKey, SCRYPT_WRITTEN, ScryptParameters } from './backup-kdf';
import { legacyHeaderFromContent } from './backup-legacy';

export { BackupError } from './backup-error';
export { BACKUP_FORMAT, LEGACY_BACKUP_FORMAT } from './backup-header';
export type { BackupHeader } from './backup-header';

/** Backups are files `<environment>-<UTC time>.capi-backup`. */
export const BACKUP_SUFFIX = '.capi-backup';
export const MIN_KEY_LENGTH = 16;
/** The command-line switch that opens a v1 backup (named in the refusal). */
export const LEGACY_BACKUP_SWITCH = '--allow-legacy-backup';

const MAX_HEADER_BYTES = 1024 * 1024;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The objects, by namespace, by file name (`<Kind>_<Namespace>_<Name>.yaml`), as clusterctl wrote them. */
export type MoveFiles = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Labels and annotations of a namespace (clusterctl creates missing namespaces bare). */
export interface NamespaceMetadata {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface BackupContent {
  readonly header: BackupHeader;
  readonly namespaces: MoveFiles;
  readonly namespaceMetadata: Readonly<Record<string, NamespaceMetadata>>;
}

/** What the opener expects of a backup; anything else is refused. */
export interface OpenExpectation {
  /** The environment it must be a backup of. */
  readonly environment: string;
  /**
   * The time that chose it (the header a listing read): the authenticated header must still say it.
   * @default any time (a backup named by the operator)
   */
  readonly createdAt?: string;
  /**
   * Open a capi-openstack-backup/v1 file, whose header is not authenticated (its environment and
   * clusters are then taken from its encrypted content).
   * @default false
   */
  readonly allowLegacy?: boolean;
}

interface Envelope {
  readonly header: BackupHeader;
  readonly kdf: ScryptParameters & { readonly salt: Buffer };
  readonly iv: Buffer;
  /** The exact header line with its newline: the GCM additional data (v2). */
  readonly headerLine: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

export function checkBackupKey(key: string | undefined, variable: string): string {
  if (!key) throw new BackupError(`${variable} is not set: backups hold every cluster's Secrets and are encrypted with it (a long random string, kept like a password; the same one restores)`);
  if (key.length < MIN_KEY_LENGTH) throw new BackupError(`${variable} is ${key.length} characters long: expected at least ${MIN_KEY_LENGTH}`);
  return key;
}

export function sealBackup(content: BackupContent, key: string): Buffer {
  if (content.header.format !== BACKUP_FORMAT) throw new BackupError(`a backup is written as ${BACKUP_FORMAT}, not ${content.header.format}`);
  // what is written must read back
  const header = parseBackupHeader(content.header, 'the backup being written');
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const headerLine = Buffer.from(`${JSON.stringify({ header, kdf: { name: 'scrypt', salt: salt.toString('base64'), ...SCRYPT_WRITTEN }, cipher: { name: 'aes-256-gcm', iv: iv.toString('base64') } })}\n`);
  const cipher = createCipheriv('aes-256-gcm', deriveBackupKey(key, salt, SCRYPT_WRITTEN), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(headerLine);
  const body = Buffer.concat([cipher.update(gzipSync(JSON.stringify({ namespaces: content.namespaces, namespaceMetadata: content.namespaceMetadata }))), cipher.final()]);
  return Buffer.concat([headerLine, body, cipher.getAuthTag()]);
}

/** The header of a backup file as the file states it (no key needed, so not yet authenticated). */
export function readBackupHeader(file: Buffer, what: string): BackupHeader {
  return readEnvelope(file, what).header;
}

/**
 * The content of a backup, authenticated: refused for a wrong key, any changed byte (the header
 * line included), another environment, another time than `expect.createdAt`, and a v1 file unless
 * `expect.allowLegacy`. The header's scrypt parameters are bounded before a key is derived.
 */
export function openBackup(file: Buffer, key: string, what: string, expect: OpenExpectation): BackupContent {
  const envelope = readEnvelope(file, what);
  const legacy = envelope.header.format === LEGACY_BACKUP_FORMAT;
  if (legacy && !expect.allowLegacy) {
    throw new BackupError(`${what} is a ${LEGACY_BACKUP_FORMAT} backup: its clear header (environment, time, clusters) is not authenticated, so it may have been relabelled. If you trust where it was kept, open it with ${LEGACY_BACKUP_SWITCH}: its environment and clusters are then taken from its encrypted content`);
  }
  if (!legacy && envelope.header.environment !== expect.environment) throw new BackupError(`${what} is a backup of environment ${envelope.header.environment}, not of ${expect.environment}`);
  const payload = parsePayload(decrypt(envelope, key, legacy, what), what);
  const header = legacy ? legacyHeaderFromContent(envelope.header, payload, expect.environment, what) : envelope.header;
  if (expect.createdAt !== undefined && header.createdAt !== expect.createdAt) {
    throw new BackupError(`${what} changed after it was chosen: its authenticated time is ${header.createdAt}, the listing that chose it read ${expect.createdAt}`);
  }
  return { header, ...payload };
}

function decrypt(envelope: Envelope, key: string, legacy: boolean, what: string): Buffer {
  const aesKey = deriveBackupKey(key, envelope.kdf.salt, envelope.kdf);
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey, envelope.iv, { authTagLength: TAG_BYTES });
    if (!legacy) decipher.setAAD(envelope.headerLine);
    decipher.setAuthTag(envelope.tag);
    return Buffer.concat([decipher.update(envelope.ciphertext), decipher.final()]);
  } catch {
    throw new BackupError(`${what}: cannot decrypt it: wrong key, or the file was changed${legacy ? '' : ' (its header included)'}`);
  }
}

function parsePayload(plain: Buffer, what: string): Omit<BackupContent, 'header'> {
  let payload: { namespaces?: unknown; namespaceMetadata?: unknown } | undefined;
  try {
    payload = JSON.parse(gunzipSync(plain).toString('utf8')) as typeof payload;
  } catch {
    payload = undefined;
  }
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isTextMap = (v: unknown) => isMap(v) && Object.values(v).every((s) => typeof s === 'string');
  const namespaces = payload?.namespaces;
  const metadata = payload?.namespaceMetadata;
  if (!isMap(namespaces) || !Object.values(namespaces).every(isTextMap) || !isMap(metadata) || !Object.values(metadata).every((m) => isMap(m) && isTextMap(m.labels) && isTextMap(m.annotations))) {
    throw new BackupError(`${what}: decrypted, but it does not hold clusterctl move files by namespace`);
  }
  return { namespaces: namespaces as MoveFiles, namespaceMetadata: metadata as Record<string, NamespaceMetadata> };
}

function readEnvelope(file: Buffer, what: string): Envelope {
  const nl = file.subarray(0, MAX_HEADER_BYTES + 1).indexOf(0x0a);
  let line: { header?: { format?: unknown }; kdf?: Record<string, unknown>; cipher?: Record<string, unknown> } | undefined;
  try {
    line = nl > 0 ? (JSON.parse(file.subarray(0, nl).toString('utf8')) as typeof line) : undefined;
  } catch {
    line = undefined;
  }
  const format = line?.header?.format;
  if (typeof line !== 'object' || line === null || (format !== BACKUP_FORMAT && format !== LEGACY_BACKUP_FORMAT)) {
    throw new BackupError(`${what}: not a ${BACKUP_FORMAT} file (expected a first line of JSON, at most ${MAX_HEADER_BYTES / 1024} KiB, whose header.format says so)`);
  }
  const header = parseBackupHeader(line.header, what);
  const kdf = mapping(line.kdf, 'kdf', what);
  const cipher = mapping(line.cipher, 'cipher', what);
  if (kdf.name !== 'scrypt') throw new BackupError(`${what}: header field kdf.name: expected "scrypt", found ${describeBackupValue(kdf.name)}`);
  if (cipher.name !== 'aes-256-gcm') throw new BackupError(`${what}: header field cipher.name: expected "aes-256-gcm", found ${describeBackupValue(cipher.name)}`);
  const params = checkScryptParameters(kdf, what);
  const salt = base64Bytes(kdf.salt, SALT_BYTES, 'kdf.salt', what);
  const iv = base64Bytes(cipher.iv, IV_BYTES, 'cipher.iv', what);
  const rest = file.subarray(nl + 1);
  if (format === LEGACY_BACKUP_FORMAT) return { header, kdf: { ...params, salt }, iv, headerLine: file.subarray(0, nl + 1), ciphertext: rest, tag: base64Bytes(cipher.tag, TAG_BYTES, 'cipher.tag', what) };
  if (rest.length < TAG_BYTES) throw new BackupError(`${what}: ends before its ${TAG_BYTES}-byte authentication tag (${rest.length} bytes after the header)`);
  return { header, kdf: { ...params, salt }, iv, headerLine: file.subarray(0, nl + 1), ciphertext: rest.subarray(0, rest.length - TAG_BYTES), tag: rest.subarray(rest.length - TAG_BYTES) };
}

function mapping(value: unknown, field: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BackupError(`${what}: header field ${field}: expected a mapping, found ${describeBackupValue(value)}`);
  return value as Record<string, unknown>;
}

/** Exactly `bytes` bytes in canonical base64 (Node's decoder would skip what is not base64). */
function base64Bytes(value: unknown, bytes: number, field: string, what: string): Buffer {
  const decoded = typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
  if (!decoded || decoded.length !== bytes || decoded.toString('base64') !== value) throw new BackupError(`${what}: header field ${field}: expected ${bytes} bytes in base64, found ${describeBackupValue(value)}`);
  return decoded;
}

/** `<environment>-<YYYYMMDDTHHMMSSZ>.capi-backup`: a name for people; restore chooses by the authenticated time. */
export function backupFileName(environment: string, at: Date): string {
  return `${environment}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}${BACKUP_SUFFIX}`;
}
