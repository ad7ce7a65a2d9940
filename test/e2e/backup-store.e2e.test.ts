/**
 * Backups kept in the environment's object store (stateBackend): `capi-openstack management`
 * writes, lists and reads them through the S3 API of the local S3 server (scripts/local-s3,
 * versitygw). The backup's content is made here (no management cluster needed); what is checked
 * is the store: the object is the sealed file byte for byte, listings hold only this environment's
 * backups, the newest is chosen by the time in its header (not by the object's name), and the CLI
 * lists them from the store.
 *
 * Skipped without the local S3 server, unless LOCAL_S3_REQUIRED=1.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../lib/runtime/cli/io';
import { runCli } from '../../lib/runtime/cli/main';
import { BACKUP_FORMAT, backupFileName, openBackup, sealBackup } from '../../lib/runtime/management/backup-archive';
import { newestBackup, S3BackupStore } from '../../lib/runtime/management/backup-store';
import { S3Client } from '../../lib/runtime/state/s3-client';
import { CACHE_DIR, REPO } from './support/management-cloud';

const ENDPOINT = 'http://127.0.0.1:9410';
const BUCKET = `capi-e2e-backups-${process.pid}`;
const CREDENTIALS = path.join(process.env.LOCAL_S3_STATE || path.join(CACHE_DIR, 'local-s3'), 'credentials.env');
const up = spawnSync(path.join(REPO, 'scripts', 'local-s3', 'status'), [], { encoding: 'utf8' }).status === 0;
if (!up && process.env.LOCAL_S3_REQUIRED !== '1') console.warn('backup store e2e skipped: the local S3 server does not run (scripts/local-s3/start)');
const suite = up || process.env.LOCAL_S3_REQUIRED === '1' ? describe : describe.skip;
const KEY = 'e2e-backup-store-key-0123456789';

suite('management backups in the environment\'s object store (local S3 server)', () => {
  let s3: S3Client;
  let env: Record<string, string>;
  const header = (createdAt: string) => ({ format: BACKUP_FORMAT, environment: 'local', createdAt, clusters: ['capi-local-e2e/e2e'], objects: 1, clusterctlVersion: 'v1.12.10' }) as const;

  beforeAll(async () => {
    if (!up) throw new Error('LOCAL_S3_REQUIRED=1 but the local S3 server does not run (scripts/local-s3/start)');
    env = Object.fromEntries([...fs.readFileSync(CREDENTIALS, 'utf8').matchAll(/^(?:export )?(AWS_[A-Z_]+)=['"]?([^'"\n]*)['"]?$/gm)].map((m) => [m[1], m[2]]));
    s3 = new S3Client({ endpoint: ENDPOINT, bucket: BUCKET, region: 'RegionOne' }, { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY });
    await s3.createBucket();
  });

  afterAll(async () => {
    if (!s3) return;
    for (const k of await s3.list('')) await s3.delete(k);
    await s3.delete('').catch(() => undefined);
  });

  test('write, list and read back: the stored backup is the sealed file, byte for byte, and opens with the key', async () => {
    const store = new S3BackupStore(s3, BUCKET, 'local/backups/', 'local');
    const older = sealBackup({ header: header('2026-11-25T09:00:00.000Z'), namespaces: { ns: { 'Cluster_ns_e2e.yaml': '{}' } }, namespaceMetadata: {} }, KEY);
    const newer = sealBackup({ header: header('2026-11-25T18:00:00.000Z'), namespaces: { ns: { 'Cluster_ns_e2e.yaml': '{"newer":true}' } }, namespaceMetadata: {} }, KEY);
    expect(await store.write(backupFileName('local', new Date('2026-11-25T18:00:00Z')), newer)).toBe(`s3://${BUCKET}/local/backups/local-20261125T180000Z.capi-backup`);
    await store.write(backupFileName('local', new Date('2026-11-25T09:00:00Z')), older);
    await s3.putJson('local/backups/other-20261125T100000Z.capi-backup', { not: 'ours' });
    expect(await store.list()).toEqual(['local-20261125T090000Z.capi-backup', 'local-20261125T180000Z.capi-backup']);
    const newest = await newestBackup(store, 'local');
    expect(newest.name).toBe('local-20261125T180000Z.capi-backup');
    expect((await store.read(newest.name)).equals(newer)).toBe(true);
    expect(openBackup(await store.read(newest.name), KEY, newest.name, { environment: 'local', createdAt: newest.header.createdAt }).namespaces.ns['Cluster_ns_e2e.yaml']).toBe('{"newer":true}');
    // an older backup stored under a name that sorts last is not taken: the time is the authenticated header's
    await store.write('local-20991231T000000Z.capi-backup', older);
    expect((await newestBackup(store, 'local')).name).toBe('local-20261125T180000Z.capi-backup');
    await s3.delete('local/backups/local-20991231T000000Z.capi-backup');
  });

  test('the CLI lists them from the store of an environment with stateBackend', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-store-e2e-'));
    fs.mkdirSync(path.join(dir, 'environments'));
    const local = fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8');
    fs.writeFileSync(path.join(dir, 'environments', 'local.yaml'), `${local}\nstateBackend:\n  endpoint: ${ENDPOINT}\n  bucket: ${BUCKET}\n  region: RegionOne\n`);
    const io = memoryIo(dir, { HOME: dir, ...env });
    expect(await runCli(['management', 'backups', 'local'], io)).toBe(0);
    expect(io.stdout).toEqual([
      'local-20261125T090000Z.capi-backup  2026-11-25T09:00:00.000Z  1 clusters (capi-local-e2e/e2e)  1 objects  clusterctl v1.12.10',
      'local-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (capi-local-e2e/e2e)  1 objects  clusterctl v1.12.10',
    ]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
