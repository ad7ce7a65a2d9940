/** Which backup a restore takes: the newest by the authenticated time in its header, never by its file name. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BACKUP_FORMAT, BackupContent, BackupHeader, openBackup, sealBackup } from '../../../lib/runtime/management/backup-archive';
import { LocalBackupStore, newestBackup, scanBackups } from '../../../lib/runtime/management/backup-store';

const KEY = 'a-long-random-operator-key-0123456789';

function backupOf(environment: string, createdAt: string, marker: string): BackupContent {
  const header: BackupHeader = { format: BACKUP_FORMAT, environment, createdAt, clusters: [`capi-${environment}-web/web`], objects: 1, clusterctlVersion: 'v1.12.4' };
  return { header, namespaces: { [`capi-${environment}-web`]: { [`Cluster_capi-${environment}-web_web.yaml`]: JSON.stringify({ marker }) } }, namespaceMetadata: {} };
}

function storeWith(files: Record<string, Buffer | string>): LocalBackupStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-store-'));
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
  return new LocalBackupStore(dir, 'prod');
}

describe('choosing the backup to restore', () => {
  const older = sealBackup(backupOf('prod', '2026-11-25T18:00:00.000Z', 'older'), KEY);
  const newer = sealBackup(backupOf('prod', '2026-11-26T09:00:00.000Z', 'newer'), KEY);

  test('the newest by the time in its header, not by its name: an old backup renamed to sort last is not taken', async () => {
    const store = storeWith({ 'prod-20991231T000000Z.capi-backup': older, 'prod-20261126T090000Z.capi-backup': newer });
    const chosen = await newestBackup(store, 'prod');
    expect(chosen.name).toBe('prod-20261126T090000Z.capi-backup');
    expect(chosen.header.createdAt).toBe('2026-11-26T09:00:00.000Z');
    const opened = openBackup(await store.read(chosen.name), KEY, chosen.name, { environment: 'prod', createdAt: chosen.header.createdAt });
    expect(opened.namespaces['capi-prod-web']['Cluster_capi-prod-web_web.yaml']).toBe('{"marker":"newer"}');
  });

  test('a staging backup renamed into prod\'s store is never chosen, whatever its name or time', async () => {
    const staging = sealBackup(backupOf('staging', '2027-01-01T00:00:00.000Z', 'staging'), KEY);
    const store = storeWith({ 'prod-20991231T000000Z.capi-backup': staging, 'prod-20261125T180000Z.capi-backup': older });
    expect((await newestBackup(store, 'prod')).name).toBe('prod-20261125T180000Z.capi-backup');
    const onlyStaging = storeWith({ 'prod-20991231T000000Z.capi-backup': staging });
    await expect(newestBackup(onlyStaging, 'prod')).rejects.toThrow(`no ${BACKUP_FORMAT} backup of prod in ${onlyStaging.location}: 1 file of other environments (prod-20991231T000000Z.capi-backup: staging)`);
  });

  test('a header forged to look newest is chosen, then refused when opened: never a silent fall-back to an older backup', async () => {
    const nl = newer.indexOf(0x0a);
    const forged = Buffer.concat([Buffer.from(newer.subarray(0, nl).toString('utf8').replace('2026-11-26T09:00:00.000Z', '2027-06-01T00:00:00.000Z')), newer.subarray(nl)]);
    const store = storeWith({ 'prod-20261125T180000Z.capi-backup': older, 'prod-20261126T090000Z.capi-backup': forged });
    const chosen = await newestBackup(store, 'prod');
    expect(chosen).toMatchObject({ name: 'prod-20261126T090000Z.capi-backup', header: { createdAt: '2027-06-01T00:00:00.000Z' } });
    const bytes = await store.read(chosen.name);
    expect(() => openBackup(bytes, KEY, chosen.name, { environment: 'prod', createdAt: chosen.header.createdAt })).toThrow(/cannot decrypt it: wrong key, or the file was changed \(its header included\)/);
  });

  test('a backup replaced between choosing and opening is refused: the authenticated time must be the one that chose it', async () => {
    const store = storeWith({ 'prod-20261126T090000Z.capi-backup': newer });
    const chosen = await newestBackup(store, 'prod');
    fs.writeFileSync(path.join(store.location, chosen.name), older);
    expect(() => openBackup(fs.readFileSync(path.join(store.location, chosen.name)), KEY, chosen.name, { environment: 'prod', createdAt: chosen.header.createdAt })).toThrow(
      `${chosen.name} changed after it was chosen: its authenticated time is 2026-11-25T18:00:00.000Z, the listing that chose it read 2026-11-26T09:00:00.000Z`,
    );
  });

  test('v1 backups are never chosen; the refusal names the newest of them and how to open one', async () => {
    const v1 = fs.readFileSync(path.join(__dirname, 'fixtures', 'v1-prod-20261125T180000Z.capi-backup'));
    const store = storeWith({ 'prod-20261125T180000Z.capi-backup': v1, 'prod-junk.capi-backup': 'not a backup' });
    await expect(newestBackup(store, 'prod')).rejects.toThrow(
      `no ${BACKUP_FORMAT} backup of prod in ${store.location}: 1 file of the previous format capi-openstack-backup/v1, whose time is not authenticated and so never chooses: name one with --from <name> --allow-legacy-backup (the newest by its own header is prod-20261125T180000Z.capi-backup); 1 unreadable file (prod-junk.capi-backup: not a ${BACKUP_FORMAT} file`,
    );
    await expect(newestBackup(storeWith({}), 'prod')).rejects.toThrow(/^no backup of prod in .* \(capi-openstack management backup prod\)$/);
  });

  test('the scan orders by the time in the headers; names with characters unsafe to print are not listed', async () => {
    const store = storeWith({ 'prod-b.capi-backup': older, 'prod-a.capi-backup': newer, 'prod-\u001b[2J.capi-backup': newer, 'staging-x.capi-backup': newer });
    expect((await scanBackups(store)).map((e) => e.name)).toEqual(['prod-b.capi-backup', 'prod-a.capi-backup']);
  });
});
