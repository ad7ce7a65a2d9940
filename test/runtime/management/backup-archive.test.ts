import * as fs from 'fs';
import * as path from 'path';
import { BACKUP_FORMAT, BackupContent, BackupError, backupFileName, checkBackupKey, LEGACY_BACKUP_FORMAT, openBackup, readBackupHeader, sealBackup } from '../../../lib/runtime/management/backup-archive';
import { SCRYPT_WRITTEN } from '../../../lib/runtime/management/backup-kdf';
import { cpuTimed } from '../../support/cpu-time';

const KEY = 'a-long-random-operator-key-0123456789';
const SECRET_TEXT = 'password: s3cret-application-credential';
const content: BackupContent = {
  header: { format: BACKUP_FORMAT, environment: 'prod', createdAt: '2026-11-25T18:00:00.000Z', clusters: ['capi-prod-web/web'], objects: 2, clusterctlVersion: 'v1.12.10' },
  namespaces: { 'capi-prod-web': { 'Cluster_capi-prod-web_web.yaml': '{"kind":"Cluster"}', 'Secret_capi-prod-web_web-cloud-config.yaml': SECRET_TEXT } },
  namespaceMetadata: { 'capi-prod-web': { labels: { 'capi-openstack-cdktf/environment': 'prod' }, annotations: {} } },
};
const PROD = { environment: 'prod' };
/** Backups written by the code of main 5acdd22 (format v1), with KEY: see fixtures/README.md. */
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, 'fixtures', name));
const V1_PROD = 'v1-prod-20261125T180000Z.capi-backup';
const V1_STAGING = 'v1-staging-20261126T090000Z.capi-backup';

/** The file with its first line (the header) replaced by `edit` of its JSON, the rest byte for byte. */
function withHeaderLine(file: Buffer, edit: (line: Record<string, any>) => void): Buffer {
  const nl = file.indexOf(0x0a);
  const line = JSON.parse(file.subarray(0, nl).toString('utf8'));
  edit(line);
  return Buffer.concat([Buffer.from(JSON.stringify(line)), file.subarray(nl)]);
}

describe('backup files', () => {
  const sealed = sealBackup(content, KEY);

  test('round trip: what was sealed opens with the same key', () => {
    expect(openBackup(sealed, KEY, 'b', PROD)).toEqual(content);
  });

  test('the objects are encrypted: no object text in the file; the clear header tells what it is', () => {
    expect(sealed.toString('latin1')).not.toContain('s3cret');
    expect(sealed.toString('latin1')).not.toContain('"kind":"Cluster"');
    expect(readBackupHeader(sealed, 'b')).toEqual(content.header);
  });

  test('two backups of the same content differ (fresh salt and IV)', () => {
    expect(sealBackup(content, KEY).equals(sealed)).toBe(false);
  });

  test('a wrong key, or a changed byte of the ciphertext or tag, is refused with one clear message', () => {
    expect(() => openBackup(sealed, `${KEY}x`, 'backups/prod/x.capi-backup', PROD)).toThrow(new BackupError('backups/prod/x.capi-backup: cannot decrypt it: wrong key, or the file was changed (its header included)'));
    for (const at of [sealed.indexOf(0x0a) + 1, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[at] ^= 1;
      expect(() => openBackup(changed, KEY, 'f', PROD)).toThrow(/cannot decrypt it/);
    }
  });

  test('the header is authenticated: a changed byte in the clear first line is refused', () => {
    // the same length, still valid JSON and a valid header: only the tag can tell
    const text = sealed.toString('latin1');
    const changed = Buffer.from(text.replace('"objects":2', '"objects":3'), 'latin1');
    expect(changed.length).toBe(sealed.length);
    expect(readBackupHeader(changed, 'f').objects).toBe(3);
    expect(() => openBackup(changed, KEY, 'f', PROD)).toThrow(new BackupError('f: cannot decrypt it: wrong key, or the file was changed (its header included)'));
  });

  test('a staging backup relabelled as prod with no clusters (the header rewritten) is refused', () => {
    const staging = sealBackup({ ...content, header: { ...content.header, environment: 'staging' } }, KEY);
    const relabelled = withHeaderLine(staging, (l) => {
      l.header.environment = 'prod';
      l.header.clusters = [];
    });
    expect(readBackupHeader(relabelled, 'prod-x.capi-backup')).toMatchObject({ environment: 'prod', clusters: [] });
    expect(() => openBackup(relabelled, KEY, 'prod-x.capi-backup', PROD)).toThrow(/^prod-x\.capi-backup: cannot decrypt it: wrong key, or the file was changed \(its header included\)$/);
  });

  test('a staging backup renamed into prod\'s place is refused: its authenticated header names staging', () => {
    const staging = sealBackup({ ...content, header: { ...content.header, environment: 'staging' } }, KEY);
    expect(() => openBackup(staging, KEY, 'backups/prod/prod-20991231T000000Z.capi-backup', PROD)).toThrow(new BackupError('backups/prod/prod-20991231T000000Z.capi-backup is a backup of environment staging, not of prod'));
    expect(openBackup(staging, KEY, 's', { environment: 'staging' }).header.environment).toBe('staging');
  });

  test('a backup chosen by the time its header states is refused when the authenticated time differs', () => {
    expect(() => openBackup(sealed, KEY, 'f', { environment: 'prod', createdAt: '2026-11-26T00:00:00.000Z' })).toThrow(new BackupError('f changed after it was chosen: its authenticated time is 2026-11-25T18:00:00.000Z, the listing that chose it read 2026-11-26T00:00:00.000Z'));
    expect(openBackup(sealed, KEY, 'f', { environment: 'prod', createdAt: content.header.createdAt }).header.createdAt).toBe(content.header.createdAt);
  });

  test.each([
    ['N', 1 << 30, 'a power of two from 16384 to 131072', 'number 1073741824'],
    ['N', 32769, 'a power of two from 16384 to 131072', 'number 32769'],
    ['N', 1 << 18, 'a power of two from 16384 to 131072', 'number 262144'],
    ['N', '32768', 'a power of two from 16384 to 131072', '"32768"'],
    ['r', 1e9, 'a whole number from 1 to 16', 'number 1000000000'],
    ['r', 0, 'a whole number from 1 to 16', 'number 0'],
    ['p', 64, 'a whole number from 1 to 4', 'number 64'],
    ['p', 1.5, 'a whole number from 1 to 4', 'number 1.5'],
  ])('an oversized or malformed cost parameter (kdf.%s = %p) is refused before a key is derived', (field, value, expected, found) => {
    const crafted = withHeaderLine(sealed, (l) => {
      l.kdf[field] = value;
    });
    const { cpuMs } = cpuTimed(() =>
      expect(() => openBackup(crafted, KEY, 'crafted.capi-backup', PROD)).toThrow(
        new BackupError(`crafted.capi-backup: header field kdf.${field}: expected ${expected}, found ${found} (refused before a key is derived: a changed header could otherwise ask for hours of CPU)`),
      ),
    );
    // one derivation at the written cost takes ~100 ms of CPU; p = 64 would take 64 times that
    expect(cpuMs).toBeLessThan(1000);
    expect(() => readBackupHeader(crafted, 'crafted.capi-backup')).toThrow(`header field kdf.${field}`);
  });

  test('parameters within the bounds but past what memory and work allow together are refused', () => {
    const big = (kdf: object) => withHeaderLine(sealed, (l) => Object.assign(l.kdf, kdf));
    expect(() => openBackup(big({ N: 1 << 17, r: 16 }), KEY, 'f', PROD)).toThrow('f: header field kdf.r: expected at most 8 with N 131072 (128·N·r bytes of memory, at most 128 MiB), found number 16');
    // within the bounds: derived (the key then fails on the changed header)
    expect(() => openBackup(big({ N: 1 << 16, r: 8, p: 1 }), KEY, 'f', PROD)).toThrow(/cannot decrypt it/);
    expect(() => openBackup(big({ N: 1 << 16, r: 16, p: 4 }), KEY, 'f', PROD)).toThrow('f: header field kdf.p: expected at most 2 with N 65536 and r 16 (N·r·p at most 2097152)');
    expect(SCRYPT_WRITTEN).toEqual({ N: 32768, r: 8, p: 1 });
  });

  test('header fields are checked for shape when read: control characters never reach a listing or a message', () => {
    const crafted = withHeaderLine(sealed, (l) => {
      l.header.environment = 'prod\u001b[2J\u009b';
    });
    expect(() => readBackupHeader(crafted, 'f')).toThrow(new BackupError('f: header field header.environment: expected an environment name, found "prod\\u001b[2J\\u009b"'));
    const cluster = withHeaderLine(sealed, (l) => {
      l.header.clusters = ['ns/ok', 'ns/evil\nwrote 0 clusters'];
    });
    expect(() => readBackupHeader(cluster, 'f')).toThrow('f: header field header.clusters[1]: expected "<namespace>/<name>" of a Cluster, found "ns/evil\\nwrote 0 clusters"');
    const time = withHeaderLine(sealed, (l) => {
      l.header.createdAt = '2026-13-45T18:00:00.000Z';
    });
    expect(() => readBackupHeader(time, 'f')).toThrow('f: header field header.createdAt: expected a UTC time like 2026-11-25T18:00:00.000Z, found "2026-13-45T18:00:00.000Z"');
  });

  test('salt, IV and the tag must have their exact lengths (a short GCM tag would be easier to forge)', () => {
    expect(() => openBackup(withHeaderLine(sealed, (l) => (l.cipher.iv = 'AAAA')), KEY, 'f', PROD)).toThrow('f: header field cipher.iv: expected 12 bytes in base64, found "AAAA"');
    expect(() => openBackup(withHeaderLine(fixture(V1_PROD), (l) => (l.cipher.tag = l.cipher.tag.slice(0, 8))), KEY, 'f', { ...PROD, allowLegacy: true })).toThrow(/^f: header field cipher\.tag: expected 16 bytes in base64, found "/);
    expect(() => openBackup(sealed.subarray(0, sealed.indexOf(0x0a) + 10), KEY, 'f', PROD)).toThrow('f: ends before its 16-byte authentication tag (9 bytes after the header)');
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

  test('file names sort by time (for people: restore chooses by the authenticated header)', () => {
    expect(backupFileName('prod', new Date('2026-11-25T18:00:05.123Z'))).toBe('prod-20261125T180005Z.capi-backup');
    const names = ['2026-11-25T18:00:05Z', '2026-11-25T09:00:00Z', '2027-01-01T00:00:00Z'].map((t) => backupFileName('prod', new Date(t)));
    expect([...names].sort()).toEqual([names[1], names[0], names[2]]);
  });
});

describe('backups of the previous format (v1: header outside the tag)', () => {
  test('refused unless asked for, with the switch that opens them', () => {
    expect(readBackupHeader(fixture(V1_PROD), V1_PROD).format).toBe(LEGACY_BACKUP_FORMAT);
    expect(() => openBackup(fixture(V1_PROD), KEY, V1_PROD, PROD)).toThrow(
      new BackupError(`${V1_PROD} is a capi-openstack-backup/v1 backup: its clear header (environment, time, clusters) is not authenticated, so it may have been relabelled. If you trust where it was kept, open it with --allow-legacy-backup: its environment and clusters are then taken from its encrypted content`),
    );
  });

  test('asked for, it opens with its environment and clusters taken from its content', () => {
    const opened = openBackup(fixture(V1_PROD), KEY, V1_PROD, { ...PROD, allowLegacy: true });
    expect(opened.header).toEqual({ format: LEGACY_BACKUP_FORMAT, environment: 'prod', createdAt: '2026-11-25T18:00:00.000Z', clusters: ['capi-prod-web/web'], objects: 2, clusterctlVersion: 'v1.12.4' });
    expect(Object.keys(opened.namespaces['capi-prod-web'])).toEqual(['Cluster_capi-prod-web_web.yaml', 'Secret_capi-prod-web_web-cloud-config.yaml']);
  });

  test('a staging v1 backup relabelled as prod with no clusters is refused by its content even when asked for', () => {
    const relabelled = withHeaderLine(fixture(V1_STAGING), (l) => {
      l.header.environment = 'prod';
      l.header.clusters = [];
      l.header.objects = 0;
    });
    expect(() => openBackup(relabelled, KEY, 'prod-x.capi-backup', { ...PROD, allowLegacy: true })).toThrow(
      new BackupError('prod-x.capi-backup: namespace "capi-staging-web" in this capi-openstack-backup/v1 backup is labelled capi-openstack-cdktf/environment="staging": expected "prod" (the environment of a backup whose header is not authenticated is taken from its encrypted content)'),
    );
    // its clusters come from the content, whatever the header says
    expect(openBackup(relabelled, KEY, 's', { environment: 'staging', allowLegacy: true }).header).toMatchObject({ environment: 'staging', clusters: ['capi-staging-web/web'], objects: 2 });
  });

  test('its key and content stay checked: a changed content byte is refused', () => {
    const changed = Buffer.from(fixture(V1_PROD));
    changed[changed.length - 1] ^= 1;
    expect(() => openBackup(changed, KEY, 'f', { ...PROD, allowLegacy: true })).toThrow(new BackupError('f: cannot decrypt it: wrong key, or the file was changed'));
  });
});
