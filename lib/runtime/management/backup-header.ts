/**
 * The header of a backup file: what it is, of which environment, when, which clusters. It is
 * readable without the key (listings), and in the current format authenticated with the content,
 * so it is checked field by field whenever it is read: until the key has verified it, it is
 * anyone's text, and it reaches terminals and messages.
 */
import { ENVIRONMENT_NAME } from '../../config/environment-name';
import { BackupError, describeBackupValue } from './backup-error';

/** The format written: the header line is the AES-GCM additional data. */
export const BACKUP_FORMAT = 'capi-openstack-backup/v2';
/** The format written before: its header is not authenticated; opened only on request. */
export const LEGACY_BACKUP_FORMAT = 'capi-openstack-backup/v1';
export type BackupFormat = typeof BACKUP_FORMAT | typeof LEGACY_BACKUP_FORMAT;

export interface BackupHeader {
  readonly format: BackupFormat;
  readonly environment: string;
  /** ISO time the backup was taken (`Date.toISOString()`). */
  readonly createdAt: string;
  /** `<namespace>/<name>` of every Cluster in it. */
  readonly clusters: readonly string[];
  /** Number of objects in it. */
  readonly objects: number;
  /** Version of the clusterctl that wrote it. */
  readonly clusterctlVersion: string;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A Kubernetes namespace (DNS label) and object name (DNS subdomain). */
const CLUSTER_REF = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const CLUSTERCTL_VERSION = /^v\d{1,4}\.\d{1,4}\.\d{1,4}[-+.0-9A-Za-z]{0,60}$/;
const MAX_CLUSTERS = 10_000;

/** The header in `value`, or an error naming the field, what is expected and what was found. */
export function parseBackupHeader(value: unknown, what: string): BackupHeader {
  const refuse = (field: string, expected: string, found: unknown): never => {
    throw new BackupError(`${what}: header field ${field}: expected ${expected}, found ${describeBackupValue(found)}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('header', 'a mapping', value);
  const h = value as Record<string, unknown>;
  if (h.format !== BACKUP_FORMAT && h.format !== LEGACY_BACKUP_FORMAT) return refuse('header.format', `"${BACKUP_FORMAT}"`, h.format);
  if (typeof h.environment !== 'string' || !ENVIRONMENT_NAME.test(h.environment)) return refuse('header.environment', 'an environment name', h.environment);
  if (typeof h.createdAt !== 'string' || !ISO_TIME.test(h.createdAt) || !sameInstant(h.createdAt)) return refuse('header.createdAt', 'a UTC time like 2026-11-25T18:00:00.000Z', h.createdAt);
  if (!Array.isArray(h.clusters) || h.clusters.length > MAX_CLUSTERS) return refuse('header.clusters', `a list of at most ${MAX_CLUSTERS} clusters`, h.clusters);
  h.clusters.forEach((c: unknown, i) => {
    if (typeof c !== 'string' || !CLUSTER_REF.test(c)) refuse(`header.clusters[${i}]`, '"<namespace>/<name>" of a Cluster', c);
  });
  if (typeof h.objects !== 'number' || !Number.isSafeInteger(h.objects) || h.objects < 0) return refuse('header.objects', 'a whole number', h.objects);
  if (typeof h.clusterctlVersion !== 'string' || !CLUSTERCTL_VERSION.test(h.clusterctlVersion)) return refuse('header.clusterctlVersion', 'a version like v1.12.10', h.clusterctlVersion);
  return { format: h.format, environment: h.environment, createdAt: h.createdAt, clusters: [...(h.clusters as string[])], objects: h.objects, clusterctlVersion: h.clusterctlVersion };
}

function sameInstant(iso: string): boolean {
  const t = new Date(iso);
  return !Number.isNaN(t.getTime()) && t.toISOString() === iso;
}
