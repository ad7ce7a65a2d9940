/**
 * The backup file of a management cluster: Cluster API's own move format (one file per object, as
 * `clusterctl move --to-directory` writes them) for each namespace that holds clusters, packed into
 * one gzip'd JSON document and encrypted with AES-256-GCM under a key derived (scrypt) from the
 * operator's passphrase. A first line in clear text says what the file is, for listings, without
 * anything secret.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'crypto';
import { gunzipSync, gzipSync } from 'zlib';

export const BACKUP_FORMAT = 'capi-openstack-backup/v1';
/** Backups are files `<environment>-<UTC time>.capi-backup`. */
export const BACKUP_SUFFIX = '.capi-backup';
/** scrypt cost: ~100 ms and 32 MiB per derivation on one core. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1 } as const;
export const MIN_KEY_LENGTH = 16;

/** What the clear-text first line says. */
export interface BackupHeader {
  readonly format: typeof BACKUP_FORMAT;
  readonly environment: string;
  /** ISO time the backup was taken. */
  readonly createdAt: string;
  /** `<namespace>/<name>` of every Cluster in it. */
  readonly clusters: readonly string[];
  /** Number of objects in it. */
  readonly objects: number;
  /** Version of the clusterctl that wrote it. */
  readonly clusterctlVersion: string;
}

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

export class BackupError extends Error {}

interface Envelope {
  readonly header: BackupHeader;
  readonly kdf: { readonly name: 'scrypt'; readonly salt: string; readonly N: number; readonly r: number; readonly p: number };
  readonly cipher: { readonly name: 'aes-256-gcm'; readonly iv: string; readonly tag: string };
}

export function checkBackupKey(key: string | undefined, variable: string): string {
  if (!key) throw new BackupError(`${variable} is not set: backups hold every cluster's Secrets and are encrypted with it (a long random string, kept like a password; the same one restores)`);
  if (key.length < MIN_KEY_LENGTH) throw new BackupError(`${variable} is ${key.length} characters long: expected at least ${MIN_KEY_LENGTH}`);
  return key;
}

export function sealBackup(content: BackupContent, key: string): Buffer {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', scryptSync(key, salt, 32, { ...SCRYPT, maxmem: 64 * 1024 * 1024 }), iv);
  const body = Buffer.concat([cipher.update(gzipSync(JSON.stringify({ namespaces: content.namespaces, namespaceMetadata: content.namespaceMetadata }))), cipher.final()]);
  const envelope: Envelope = {
    header: content.header,
    kdf: { name: 'scrypt', salt: salt.toString('base64'), ...SCRYPT },
    cipher: { name: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') },
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(envelope)}\n`), body]);
}

/** The clear-text header of a backup file (no key needed). */
export function readBackupHeader(file: Buffer, what: string): BackupHeader {
  return readEnvelope(file, what).envelope.header;
}

export function openBackup(file: Buffer, key: string, what: string): BackupContent {
  const { envelope, body } = readEnvelope(file, what);
  const { kdf, cipher } = envelope;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', scryptSync(key, Buffer.from(kdf.salt, 'base64'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 64 * 1024 * 1024 }), Buffer.from(cipher.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(cipher.tag, 'base64'));
    plain = Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new BackupError(`${what}: cannot decrypt it: wrong key, or the file was changed`);
  }
  const payload = JSON.parse(gunzipSync(plain).toString('utf8')) as Omit<BackupContent, 'header'>;
  return { header: envelope.header, namespaces: payload.namespaces, namespaceMetadata: payload.namespaceMetadata };
}

function readEnvelope(file: Buffer, what: string): { envelope: Envelope; body: Buffer } {
  const nl = file.indexOf(0x0a);
  let envelope: Envelope | undefined;
  try {
    envelope = nl > 0 ? (JSON.parse(file.subarray(0, nl).toString('utf8')) as Envelope) : undefined;
  } catch {
    envelope = undefined;
  }
  if (!envelope || envelope.header?.format !== BACKUP_FORMAT || envelope.kdf?.name !== 'scrypt' || envelope.cipher?.name !== 'aes-256-gcm') {
    throw new BackupError(`${what}: not a ${BACKUP_FORMAT} file`);
  }
  return { envelope, body: file.subarray(nl + 1) };
}

/** `<environment>-<YYYYMMDDTHHMMSSZ>.capi-backup`: names sort by time. */
export function backupFileName(environment: string, at: Date): string {
  return `${environment}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}${BACKUP_SUFFIX}`;
}
