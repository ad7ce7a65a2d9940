/** `management`: what it refuses before it reaches clusterctl or the management cluster, and the listing. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { BACKUP_FORMAT, sealBackup } from '../../../lib/runtime/management/backup-archive';

const LOCAL = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'environments', 'local.yaml'), 'utf8');
const KEY = 'an-operator-key-of-enough-length';

function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'management-cli-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  fs.writeFileSync(path.join(dir, 'environments', 'local.yaml'), LOCAL);
  return dir;
}

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
    const given = await run(project(), ['management', 'restore', 'local', '--clusterctl', '/nonexistent/clusterctl'], { HOME: '/tmp', CAPI_OPENSTACK_BACKUP_KEY: KEY });
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
});
