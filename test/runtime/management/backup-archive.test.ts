import { BACKUP_FORMAT, BackupContent, BackupError, backupFileName, checkBackupKey, openBackup, readBackupHeader, sealBackup } from '../../../lib/runtime/management/backup-archive';

const KEY = 'a-long-random-operator-key-0123456789';
const SECRET_TEXT = 'password: s3cret-application-credential';
const content: BackupContent = {
  header: { format: BACKUP_FORMAT, environment: 'prod', createdAt: '2026-11-25T18:00:00.000Z', clusters: ['capi-prod-web/web'], objects: 2, clusterctlVersion: 'v1.12.10' },
  namespaces: { 'capi-prod-web': { 'Cluster_capi-prod-web_web.yaml': '{"kind":"Cluster"}', 'Secret_capi-prod-web_web-cloud-config.yaml': SECRET_TEXT } },
  namespaceMetadata: { 'capi-prod-web': { labels: { 'capi-openstack-cdktf/environment': 'prod' }, annotations: {} } },
};

describe('backup files', () => {
  const sealed = sealBackup(content, KEY);

  test('round trip: what was sealed opens with the same key', () => {
    expect(openBackup(sealed, KEY, 'b')).toEqual(content);
  });

  test('the objects are encrypted: no object text in the file; the clear header tells what it is', () => {
    expect(sealed.toString('latin1')).not.toContain('s3cret');
    expect(sealed.toString('latin1')).not.toContain('"kind":"Cluster"');
    expect(readBackupHeader(sealed, 'b')).toEqual(content.header);
  });

  test('two backups of the same content differ (fresh salt and IV)', () => {
    expect(sealBackup(content, KEY).equals(sealed)).toBe(false);
  });

  test('a wrong key, or a changed byte, is refused with one clear message', () => {
    expect(() => openBackup(sealed, `${KEY}x`, 'backups/prod/x.capi-backup')).toThrow(new BackupError('backups/prod/x.capi-backup: cannot decrypt it: wrong key, or the file was changed'));
    const changed = Buffer.from(sealed);
    changed[changed.length - 1] ^= 1;
    expect(() => openBackup(changed, KEY, 'f')).toThrow(/cannot decrypt it/);
  });

  test('a file of another kind is named as such', () => {
    expect(() => readBackupHeader(Buffer.from('{"format":"other"}\nxx'), 'f.txt')).toThrow(`f.txt: not a ${BACKUP_FORMAT} file`);
    expect(() => readBackupHeader(Buffer.from('no newline'), 'f.txt')).toThrow(/not a capi-openstack-backup/);
  });

  test('the key must be set and long', () => {
    expect(() => checkBackupKey(undefined, 'CAPI_OPENSTACK_BACKUP_KEY')).toThrow(/CAPI_OPENSTACK_BACKUP_KEY is not set/);
    expect(() => checkBackupKey('short', 'CAPI_OPENSTACK_BACKUP_KEY')).toThrow('CAPI_OPENSTACK_BACKUP_KEY is 5 characters long: expected at least 16');
    expect(checkBackupKey(KEY, 'K')).toBe(KEY);
  });

  test('file names sort by time', () => {
    expect(backupFileName('prod', new Date('2026-11-25T18:00:05.123Z'))).toBe('prod-20261125T180005Z.capi-backup');
    const names = ['2026-11-25T18:00:05Z', '2026-11-25T09:00:00Z', '2027-01-01T00:00:00Z'].map((t) => backupFileName('prod', new Date(t)));
    expect([...names].sort()).toEqual([names[1], names[0], names[2]]);
  });
});
