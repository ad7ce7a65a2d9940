/**
 * Where backups are kept: the environment's object store (the state bucket of `stateBackend`,
 * under `<keyPrefix>/backups/`) when it has one, else a local directory. One object or file per
 * backup, named so that names sort by time.
 */
import * as fs from 'fs';
import * as path from 'path';
import { S3Client } from '../state/s3-client';
import { BACKUP_SUFFIX, BackupError } from './backup-archive';

export interface BackupStore {
  /** Where, for messages (a directory, or `s3://bucket/prefix`). */
  readonly location: string;
  /** Stores a backup; returns where it went. */
  write(name: string, content: Buffer): Promise<string>;
  /** Names of the environment's backups, oldest first. */
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

function isBackupName(name: string, environment: string): boolean {
  return name.startsWith(`${environment}-`) && name.endsWith(BACKUP_SUFFIX) && !name.includes('/');
}

/** The newest backup's name, or a clear error. */
export async function latestBackup(store: BackupStore, environment: string): Promise<string> {
  const all = await store.list();
  if (all.length === 0) throw new BackupError(`no backup of ${environment} in ${store.location} (capi-openstack management backup ${environment})`);
  return all[all.length - 1];
}
