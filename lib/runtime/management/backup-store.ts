/**
 * Where backups are kept: the environment's object store (the state bucket of `stateBackend`,
 * under `<keyPrefix>/backups/`) when it has one, else a local directory. One object or file per
 * backup. Names are for people: which backup is the newest is told by the time in its header,
 * which the key authenticates when it is opened.
 */
import * as fs from 'fs';
import * as path from 'path';
import { S3Client } from '../state/s3-client';
import { BACKUP_FORMAT, BACKUP_SUFFIX, BackupError, BackupHeader, LEGACY_BACKUP_FORMAT, LEGACY_BACKUP_SWITCH, readBackupHeader } from './backup-archive';

export interface BackupStore {
  /** Where, for messages (a directory, or `s3://bucket/prefix`). */
  readonly location: string;
  /** Stores a backup; returns where it went. */
  write(name: string, content: Buffer): Promise<string>;
  /** Names of the environment's backup files, by name. */
  list(): Promise<string[]>;
  read(name: string): Promise<Buffer>;
}

export class LocalBackupStore implements BackupStore {
  constructor(
    /** The environment's backup directory. */
    public readonly location: string,
    private readonly environment: string,
  ) {}

  async write(name: string, content: Buffer): Promise<string> {
    fs.mkdirSync(this.location, { recursive: true, mode: 0o700 });
    const file = path.join(this.location, name);
    fs.writeFileSync(`${file}.partial`, content, { mode: 0o600 });
    fs.renameSync(`${file}.partial`, file);
    return file;
  }

  async list(): Promise<string[]> {
    if (!fs.existsSync(this.location)) return [];
    return fs.readdirSync(this.location).filter((f) => isBackupName(f, this.environment)).sort();
  }

  async read(name: string): Promise<Buffer> {
    return fs.readFileSync(path.join(this.location, name));
  }
}

/** JSON envelope of a backup object (the S3 client sends JSON bodies only). */
interface StoredBackup {
  readonly format: 'capi-openstack-backup-object/v1';
  readonly base64: string;
}

export class S3BackupStore implements BackupStore {
  readonly location: string;

  constructor(
    private readonly s3: S3Client,
    bucket: string,
    /** `<keyPrefix>/backups/` */
    private readonly prefix: string,
    private readonly environment: string,
  ) {
    this.location = `s3://${bucket}/${prefix}`;
  }

  async write(name: string, content: Buffer): Promise<string> {
    const stored: StoredBackup = { format: 'capi-openstack-backup-object/v1', base64: content.toString('base64') };
    await this.s3.putJson(`${this.prefix}${name}`, stored);
    return `${this.location}${name}`;
  }

  async list(): Promise<string[]> {
    return (await this.s3.list(this.prefix)).map((k) => k.slice(this.prefix.length)).filter((n) => isBackupName(n, this.environment));
  }

  async read(name: string): Promise<Buffer> {
    const text = await this.s3.getText(`${this.prefix}${name}`);
    if (text === undefined) throw new BackupError(`no backup ${this.location}${name}`);
    let stored: StoredBackup | undefined;
    try {
      stored = JSON.parse(text) as StoredBackup;
    } catch {
      stored = undefined;
    }
    if (stored?.format !== 'capi-openstack-backup-object/v1') throw new BackupError(`${this.location}${name} is not a backup object`);
    return Buffer.from(stored.base64, 'base64');
  }
}

/** Names this tool may have written (or an operator given), in characters safe to print. */
function isBackupName(name: string, environment: string): boolean {
  return name.startsWith(`${environment}-`) && name.endsWith(BACKUP_SUFFIX) && /^[A-Za-z0-9][-A-Za-z0-9_.]*$/.test(name) && name.length <= 255;
}

/** A file of the store with the header it states (authenticated only when opened with the key). */
export interface BackupEntry {
  readonly name: string;
  readonly header?: BackupHeader;
  /** Why its header cannot be read, when it cannot. */
  readonly problem?: string;
}

/** Every backup file of the store: readable ones oldest first by the time in their header, then the unreadable ones. */
export async function scanBackups(store: BackupStore): Promise<BackupEntry[]> {
  const entries: BackupEntry[] = [];
  for (const name of await store.list()) {
    try {
      entries.push({ name, header: readBackupHeader(await store.read(name), name) });
    } catch (e) {
      if (!(e instanceof BackupError)) throw e;
      entries.push({ name, problem: e.message });
    }
  }
  const key = (e: BackupEntry) => (e.header ? `0 ${e.header.createdAt} ${e.name}` : `1 ${e.name}`);
  return entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * The backup a restore takes when none is named: of the current format and of `environment`, the
 * one whose header states the latest time. The header is authenticated when the backup is opened,
 * and the opener is given this time to check (a file swapped in between is refused). v1 files are
 * never chosen: their time is not authenticated.
 */
export async function newestBackup(store: BackupStore, environment: string): Promise<{ readonly name: string; readonly header: BackupHeader }> {
  const entries = await scanBackups(store);
  const candidates = entries.filter((e) => e.header?.format === BACKUP_FORMAT && e.header.environment === environment);
  const newest = candidates[candidates.length - 1];
  if (newest?.header) return { name: newest.name, header: newest.header };
  if (entries.length === 0) throw new BackupError(`no backup of ${environment} in ${store.location} (capi-openstack management backup ${environment})`);
  const legacy = entries.filter((e) => e.header?.format === LEGACY_BACKUP_FORMAT);
  const others = entries.filter((e) => e.header?.format === BACKUP_FORMAT && e.header.environment !== environment);
  const unreadable = entries.filter((e) => e.problem);
  const why = [
    legacy.length > 0 &&
      `${count(legacy.length, 'file')} of the previous format ${LEGACY_BACKUP_FORMAT}, whose time is not authenticated and so never chooses: name one with --from <name> ${LEGACY_BACKUP_SWITCH} (the newest by its own header is ${legacy[legacy.length - 1].name})`,
    others.length > 0 && `${count(others.length, 'file')} of other environments (${others.map((e) => `${e.name}: ${e.header?.environment}`).join(', ')})`,
    unreadable.length > 0 && `${count(unreadable.length, 'unreadable file')} (${unreadable[0].problem})`,
  ].filter(Boolean);
  throw new BackupError(`no ${BACKUP_FORMAT} backup of ${environment} in ${store.location}: ${why.join('; ')}`);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
