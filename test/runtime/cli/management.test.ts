/** `management`: what it refuses before it reaches clusterctl or the management cluster, and the listing. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { BACKUP_FORMAT, BackupHeader, sealBackup } from '../../../lib/runtime/management/backup-archive';

const LOCAL = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'environments', 'local.yaml'), 'utf8');
const KEY = 'an-operator-key-of-enough-length';

function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'management-cli-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  fs.writeFileSync(path.join(dir, 'environments', 'local.yaml'), LOCAL);
  fs.writeFileSync(path.join(dir, 'environments', 'prod.yaml'), LOCAL);
  return dir;
}

/** Backups written by the code of main 5acdd22 (format v1), with the key V1_KEY: test/runtime/management/fixtures/README.md. */
const V1_FIXTURES = path.join(__dirname, '..', 'management', 'fixtures');
const V1_KEY = 'a-long-random-operator-key-0123456789';

function sealed(environment: string, createdAt: string): Buffer {
  const header: BackupHeader = { format: BACKUP_FORMAT, environment, createdAt, clusters: [`capi-${environment}-web/web`], objects: 1, clusterctlVersion: 'v1.12.4' };
  return sealBackup({ header, namespaces: { [`capi-${environment}-web`]: { [`Cluster_capi-${environment}-web_web.yaml`]: '{}' } }, namespaceMetadata: {} }, V1_KEY);
}

function withBackups(dir: string, files: Record<string, Buffer>): void {
  fs.mkdirSync(path.join(dir, 'backups', 'prod'), { recursive: true });
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'backups', 'prod', name), bytes);
}

/** The file with its first line (the header) rewritten, the rest byte for byte. */
function relabelled(file: Buffer, edit: (line: { header: Record<string, unknown> }) => void): Buffer {
  const nl = file.indexOf(0x0a);
  const line = JSON.parse(file.subarray(0, nl).toString('utf8'));
  edit(line);
  return Buffer.concat([Buffer.from(JSON.stringify(line)), file.subarray(nl)]);
}

/** restore up to clusterctl, which does not exist here: what it chose, or why it refused before. */
const RESTORE_ENV = { HOME: '/tmp', PATH: '/nonexistent', CAPI_OPENSTACK_BACKUP_KEY: V1_KEY };
const NO_CLUSTERCTL = ['--clusterctl', '/nonexistent/clusterctl'];

async function run(dir: string, argv: string[], env: NodeJS.ProcessEnv = { HOME: dir, PATH: '/nonexistent' }) {
  const io = memoryIo(dir, env);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('capi-openstack management', () => {
  test('an unknown action is a usage error naming the actions', async () => {
    const r = await run(project(), ['management', 'snapshot', 'local']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('expected one of backup, restore, backups, replace, upgrade, found "snapshot"');
  });

  test('backup without the key refuses before anything runs, and writes nothing', async () => {
    const dir = project();
    const r = await run(dir, ['management', 'backup', 'local']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('management backup local: CAPI_OPENSTACK_BACKUP_KEY is not set');
    expect(fs.existsSync(path.join(dir, 'backups'))).toBe(false);
  });

  test('a clusterctl that cannot run is named, with where it came from and what to do', async () => {
    // Cluster API v1.13 has no pinned download (v1.12 has: clusterctl-download.test.ts)
    const dir = project();
    fs.appendFileSync(path.join(dir, 'environments', 'local.yaml'), '\nversions:\n  clusterApi: v1.13.6\n');
    const r = await run(dir, ['management', 'backup', 'local'], { HOME: '/tmp', PATH: '/nonexistent', CAPI_OPENSTACK_BACKUP_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.err).toContain('cannot run clusterctl (clusterctl, from PATH): ENOENT; install clusterctl v1.13.x');
    const given = await run(project(), ['management', 'backup', 'local', '--clusterctl', '/nonexistent/clusterctl'], { HOME: '/tmp', CAPI_OPENSTACK_BACKUP_KEY: KEY });
    expect(given.err).toContain('cannot run clusterctl (/nonexistent/clusterctl, from --clusterctl)');
  });

  test('an environment with a state store keeps its backups there: without S3 credentials it says which to export', async () => {
    const dir = project();
    fs.appendFileSync(path.join(dir, 'environments', 'local.yaml'), '\nstateBackend:\n  endpoint: http://127.0.0.1:9\n  bucket: capi-state\n');
    const r = await run(dir, ['management', 'backups', 'local']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('environment local keeps its backups in its state store (http://127.0.0.1:9): export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  });

  test('replace needs a synthesized management stack, and a VM: refused before anything runs', async () => {
    const dir = project();
    const r = await run(dir, ['management', 'replace', 'local'], { HOME: '/tmp', CAPI_OPENSTACK_BACKUP_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/management replace local: no synthesized stack local-management \(.*cdktf\.out\/stacks\/local-management\/cdk\.tf\.json does not exist\): run `cdktf synth`/);
    fs.appendFileSync(path.join(dir, 'environments', 'local.yaml'), '\nexistingManagementCluster:\n  kubeconfigFile: mgmt.kubeconfig\n');
    fs.writeFileSync(path.join(dir, 'environments', 'mgmt.kubeconfig'), 'apiVersion: v1\n');
    expect((await run(dir, ['management', 'replace', 'local'], { HOME: '/tmp', CAPI_OPENSTACK_BACKUP_KEY: KEY })).err).toContain('environment local uses an existing management cluster: there is no management VM to replace');
  });

  test('backups lists what is kept, from the clear header only (no key needed)', async () => {
    const dir = project();
    expect((await run(dir, ['management', 'backups', 'local'])).err).toContain('no backups in backups/local');
    const header = { format: BACKUP_FORMAT, environment: 'local', createdAt: '2026-11-25T18:00:00.000Z', clusters: ['capi-local-e2e/e2e'], objects: 41, clusterctlVersion: 'v1.12.10' } as const;
    fs.mkdirSync(path.join(dir, 'backups', 'local'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'backups', 'local', 'local-20261125T180000Z.capi-backup'), sealBackup({ header, namespaces: {}, namespaceMetadata: {} }, KEY));
    fs.writeFileSync(path.join(dir, 'backups', 'local', 'other-20261125T180000Z.capi-backup'), 'not ours');
    const r = await run(dir, ['management', 'backups', 'local']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('local-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (capi-local-e2e/e2e)  41 objects  clusterctl v1.12.10');
  });

  test('restore takes the newest backup by the authenticated time in its header, not by its name, and says which', async () => {
    const dir = project();
    withBackups(dir, { 'prod-20991231T000000Z.capi-backup': sealed('prod', '2026-11-25T18:00:00.000Z'), 'prod-20261126T090000Z.capi-backup': sealed('prod', '2026-11-26T09:00:00.000Z') });
    const r = await run(dir, ['management', 'restore', 'prod', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(r.err).toContain('management restore: backup prod-20261126T090000Z.capi-backup: taken 2026-11-26T09:00:00.000Z; 1 clusters (capi-prod-web/web), 1 objects');
    expect(r.err).toContain('cannot run clusterctl (/nonexistent/clusterctl, from --clusterctl)');
  });

  test('restore refuses a staging backup relabelled as prod with no clusters, before it reaches clusterctl', async () => {
    const dir = project();
    const staging = relabelled(sealed('staging', '2026-11-26T09:00:00.000Z'), (l) => {
      l.header.environment = 'prod';
      l.header.clusters = [];
    });
    withBackups(dir, { 'prod-20261126T090000Z.capi-backup': staging });
    const r = await run(dir, ['management', 'restore', 'prod', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(r.code).toBe(1);
    expect(r.err).toContain('management restore prod: backups/prod/prod-20261126T090000Z.capi-backup: cannot decrypt it: wrong key, or the file was changed (its header included)');
    expect(r.err).not.toContain('clusterctl');
    // named with --from, and as it was written (header says staging): refused as another environment's
    fs.writeFileSync(path.join(dir, 'staging.capi-backup'), sealed('staging', '2026-11-26T09:00:00.000Z'));
    const given = await run(dir, ['management', 'restore', 'prod', '--from', 'staging.capi-backup', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(given.err).toContain('management restore prod: staging.capi-backup is a backup of environment staging, not of prod');
  });

  test('v1 backups: never chosen as the newest; opened only by name with --allow-legacy-backup, environment and clusters from their content', async () => {
    const dir = project();
    const v1 = fs.readFileSync(path.join(V1_FIXTURES, 'v1-prod-20261125T180000Z.capi-backup'));
    withBackups(dir, { 'prod-20261125T180000Z.capi-backup': v1 });
    const newest = await run(dir, ['management', 'restore', 'prod', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(newest.code).toBe(1);
    expect(newest.err).toContain('whose time is not authenticated and so never chooses: name one with --from <name> --allow-legacy-backup (the newest by its own header is prod-20261125T180000Z.capi-backup)');
    const unasked = await run(dir, ['management', 'restore', 'prod', '--from', 'prod-20261125T180000Z.capi-backup', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(unasked.err).toContain('is a capi-openstack-backup/v1 backup: its clear header (environment, time, clusters) is not authenticated, so it may have been relabelled. If you trust where it was kept, open it with --allow-legacy-backup');
    const noFrom = await run(dir, ['management', 'restore', 'prod', '--allow-legacy-backup', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(noFrom.code).toBe(2);
    expect(noFrom.err).toContain('--allow-legacy-backup opens the backup named by --from');
    const asked = await run(dir, ['management', 'restore', 'prod', '--from', 'prod-20261125T180000Z.capi-backup', '--allow-legacy-backup', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(asked.err).toContain('management restore: backup prod-20261125T180000Z.capi-backup: of the previous format, environment and clusters taken from its content (its header says 2026-11-25T18:00:00.000Z, which nothing authenticates); 1 clusters (capi-prod-web/web), 2 objects');
    expect(asked.err).toContain('cannot run clusterctl (/nonexistent/clusterctl, from --clusterctl)');
    const staging = relabelled(fs.readFileSync(path.join(V1_FIXTURES, 'v1-staging-20261126T090000Z.capi-backup')), (l) => {
      l.header.environment = 'prod';
      l.header.clusters = [];
    });
    fs.writeFileSync(path.join(dir, 'relabelled.capi-backup'), staging);
    const relabel = await run(dir, ['management', 'restore', 'prod', '--from', 'relabelled.capi-backup', '--allow-legacy-backup', ...NO_CLUSTERCTL], RESTORE_ENV);
    expect(relabel.code).toBe(1);
    expect(relabel.err).toContain('relabelled.capi-backup: namespace "capi-staging-web" in this capi-openstack-backup/v1 backup is labelled capi-openstack-cdktf/environment="staging": expected "prod"');
  });

  test('backups marks what a restore would not choose: other environments, v1 files, unreadable files', async () => {
    const dir = project();
    withBackups(dir, {
      'prod-20261125T180000Z.capi-backup': fs.readFileSync(path.join(V1_FIXTURES, 'v1-prod-20261125T180000Z.capi-backup')),
      'prod-20261126T090000Z.capi-backup': sealed('prod', '2026-11-26T09:00:00.000Z'),
      'prod-20991231T000000Z.capi-backup': sealed('staging', '2026-11-27T09:00:00.000Z'),
      'prod-broken.capi-backup': relabelled(sealed('prod', '2026-11-26T09:00:00.000Z'), (l) => {
        l.header.environment = 'prod\u001b[2J';
      }),
    });
    const r = await run(dir, ['management', 'backups', 'prod']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([
      'prod-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (capi-prod-web/web)  2 objects  clusterctl v1.12.4  capi-openstack-backup/v1: header not authenticated, opens only with --from and --allow-legacy-backup',
      'prod-20261126T090000Z.capi-backup  2026-11-26T09:00:00.000Z  1 clusters (capi-prod-web/web)  1 objects  clusterctl v1.12.4',
      'prod-20991231T000000Z.capi-backup  2026-11-27T09:00:00.000Z  1 clusters (capi-staging-web/web)  1 objects  clusterctl v1.12.4  a backup of environment staging: never restored into prod',
      'prod-broken.capi-backup  unreadable: prod-broken.capi-backup: header field header.environment: expected an environment name, found "prod\\u001b[2J"',
    ]);
  });
});
