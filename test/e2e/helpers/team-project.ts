/**
 * A platform team's project on the packed package: its own stack ids (`platform-capi` with the
 * ManagementCluster, `apps` with a WorkloadCluster), its environment built in code (no environment
 * file anywhere), its state in an S3 store (the local S3 server). The operator commands of the
 * installed package run against it as a team would run them: `validate --app-dir .`, `cdktf synth`,
 * a deploy of the management stack on the local cloud, `state status`, `state unlock`,
 * `kubeconfig` and `management backups`, then destroy.
 *
 * Needs the local cloud (the lane's project, `local-e2e` entry), the local S3 server and the
 * toolchain; skipped (with a message) without them unless LOCAL_CLOUD_REQUIRED=1 / LOCAL_S3_REQUIRED=1.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { BACKUP_FORMAT, sealBackup } from '../../../lib/runtime/management/backup-archive';
import { S3BackupStore } from '../../../lib/runtime/management/backup-store';
import { S3Client } from '../../../lib/runtime/state/s3-client';
import { acquireE2eLock, E2eLock } from '../support/e2e-lock';
import { probeLocalCloud } from '../support/local-cloud-probe';
import { CACHE_DIR, cdktf, CliResult, LOCAL_CLOUDS_YAML, REPO, runWithToolchain, tail } from '../support/management-cloud';
import { buildConsumer, installedVersion } from './consumer-project';

const S3 = { endpoint: 'http://127.0.0.1:9410', region: 'RegionOne', bucket: 'capi-e2e-consumer-team' };
const S3_CREDENTIALS = path.join(process.env.LOCAL_S3_STATE || path.join(CACHE_DIR, 'local-s3'), 'credentials.env');
const PREFIX = 'e2eteam2';
const ENV = 'acme';
const MANAGEMENT = 'platform-capi';
const APPS = 'apps';

/** environments/local.yaml as data, with this suite's prefix, the shared store and its cluster named `web`. */
function environmentInput(): Record<string, unknown> {
  const local = parse(fs.readFileSync(path.join(REPO, 'environments', 'local.yaml'), 'utf8')) as Record<string, any>;
  return { ...local, prefix: PREFIX, stateBackend: S3, clusters: { web: local.clusters.e2e } };
}

/** The team's main.ts: only the package's public entry point, its own stack and construct ids. */
export function teamMain(): string {
  return `import { App, TerraformStack } from 'cdktf';
import {
  environmentFromObject, KubernetesProvider, ManagementCluster, managementKubernetesConnection,
  OpenstackProvider, TimeProvider, TlsProvider, WorkloadCluster,
} from 'capi-openstack-cdktf';

const environment = environmentFromObject('${ENV}', ${JSON.stringify(environmentInput())});
const cloud = { cloud: environment.cloud.name, region: environment.cloud.region };

const app = new App();
const platform = new TerraformStack(app, '${MANAGEMENT}');
new OpenstackProvider(platform, 'Cloud', cloud);
new TlsProvider(platform, 'Certificates');
const management = new ManagementCluster(platform, 'Management', { environment });

const apps = new TerraformStack(app, '${APPS}');
new OpenstackProvider(apps, 'Cloud', cloud);
new TimeProvider(apps, 'Time');
new KubernetesProvider(apps, 'Capi', managementKubernetesConnection(management));
const web = environment.clusters.find((c) => c.name === 'web')!;
new WorkloadCluster(apps, 'Web', { environment, cluster: web, management: { kind: 'created', cluster: management } });
apps.addDependency(platform);
app.synth();
`;
}

function servicesUp(): { ok: boolean; why: string } {
  const cloud = probeLocalCloud(LOCAL_CLOUDS_YAML, 'local-e2e');
  if (!cloud.ok) return cloud;
  if (spawnSync(path.join(REPO, 'scripts', 'local-s3', 'status'), [], { encoding: 'utf8' }).status !== 0) return { ok: false, why: 'the local S3 server does not run (scripts/local-s3/start)' };
  return { ok: true, why: '' };
}

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1' || process.env.LOCAL_S3_REQUIRED === '1';

/** @param packed the work directory and the tarball, known once the suite's beforeAll packed it */
export function describeTeamProject(packed: () => { work: string; tarball: string }): void {
  const availability = servicesUp();
  if (!availability.ok && !REQUIRED) console.warn(`consumer e2e: the team project is skipped: ${availability.why}. LOCAL_CLOUD_REQUIRED=1 makes this a failure.`);
  const suite = availability.ok || REQUIRED ? describe : describe.skip;

  suite("a team's project: own stack ids, environment built in code, state in S3 (the operator commands of the installed package)", () => {
    let dir: string;
    let lock: E2eLock | undefined;
    let s3Env: Record<string, string> = {};
    let deployed = false;
    const logDir = () => path.join(dir, 'logs');
    const cli = (args: string[], logName: string): Promise<CliResult> =>
      runWithToolchain([path.join(dir, 'node_modules', '.bin', 'capi-openstack'), ...args], { cwd: dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: logDir(), env: s3Env });
    const run = (args: string[], logName: string) => cdktf(args, { cwd: dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: logDir(), env: s3Env, timeoutSeconds: 900 });
    const ok = (r: CliResult) => ({ code: r.code, tail: r.code === 0 ? '' : tail(r) });
    /** The output lines of a CLI run (the toolchain's lines and the progress lines left out). */
    const lines = (r: CliResult) => r.output.split('\n').filter((l) => l.trim() !== '');
    const store = () => new S3Client(S3, { accessKeyId: s3Env.AWS_ACCESS_KEY_ID, secretAccessKey: s3Env.AWS_SECRET_ACCESS_KEY });
    const clearStore = async (prefix: string) => {
      for (const k of await store().list(prefix)) await store().delete(k);
    };

    beforeAll(async () => {
      if (!availability.ok) throw new Error(`the team project of the consumer e2e needs the local cloud and the local S3 server (${availability.why})`);
      s3Env = Object.fromEntries([...fs.readFileSync(S3_CREDENTIALS, 'utf8').matchAll(/^(?:export )?(AWS_[A-Z_]+)=['"]?([^'"\n]*)['"]?$/gm)].map((m) => [m[1], m[2]]));
      if (!(await store().bucketExists())) await store().createBucket();
      await clearStore(`${ENV}/backups/`);
      dir = path.join(packed().work, 'team');
      buildConsumer(dir, packed().tarball, { main: teamMain(), dependencies: [`cdktf@${installedVersion('cdktf')}`, 'constructs@^10.4.2'] });
      fs.writeFileSync(path.join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js', projectId: 'capi-e2e-consumer-team', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} }, null, 2));
      fs.rmSync(path.join(dir, 'cdktf.out'), { recursive: true, force: true });
      lock = await acquireE2eLock({ holder: 'consumer e2e (team project)' });
    }, 10 * 60 * 1000);

    afterAll(async () => {
      try {
        if (dir && (deployed || fs.existsSync(path.join(dir, 'cdktf.out', 'stacks', MANAGEMENT)))) {
          const destroy = await run(['destroy', MANAGEMENT, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy');
          // a failed destroy keeps the state in the store: the next run destroys what it holds first
          if (destroy.code !== 0) console.error(`consumer e2e: destroy of ${MANAGEMENT} failed: ${tail(destroy)}`);
          else await clearStore(`${ENV}/`);
        }
      } finally {
        await lock?.release();
      }
    }, 15 * 60 * 1000);

    test('validate --app-dir . runs the app and checks the environment it built in code', async () => {
      const r = await cli(['validate', '--app-dir', '.'], 'validate');
      expect(ok(r)).toEqual({ code: 0, tail: '' });
      expect(lines(r)).toContain(`ok  "${ENV}" (built in code by the app) (1 cluster; stacks ${MANAGEMENT}, ${APPS})`);
    }, 5 * 60 * 1000);

    test('cdktf synth writes the stacks under their own ids', async () => {
      const r = await run(['synth'], 'synth');
      expect(ok(r)).toEqual({ code: 0, tail: '' });
      expect(fs.readdirSync(path.join(dir, 'cdktf.out', 'stacks')).sort()).toEqual([APPS, MANAGEMENT]);
      // a run that died before its destroy left its state in the store: clear it first
      const before = await cli(['state', 'status', ENV], 'status-before');
      if (before.output.includes(`${MANAGEMENT}: state `)) {
        expect(ok(await run(['destroy', MANAGEMENT, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-leftovers'))).toEqual({ code: 0, tail: '' });
      }
    }, 15 * 60 * 1000);

    test('the management stack deploys on the local cloud with its state in the store', async () => {
      const r = await run(['deploy', MANAGEMENT, '--auto-approve'], 'deploy');
      deployed = true;
      expect(ok(r)).toEqual({ code: 0, tail: '' });
    }, 15 * 60 * 1000);

    test('state status <env>: both stacks of their own ids, the deployed one with its state and no lock', async () => {
      const r = await cli(['state', 'status', ENV], 'status');
      expect(ok(r)).toEqual({ code: 0, tail: '' });
      expect(lines(r)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^${MANAGEMENT}: state ${S3.bucket}/${ENV}/${MANAGEMENT}\\.tfstate \\(\\d+ bytes, .*\\); not locked$`)),
          `${APPS}: no state at ${S3.bucket}/${ENV}/${APPS}.tfstate; not locked`,
        ]),
      );
      const unlock = await cli(['state', 'unlock', ENV, MANAGEMENT], 'unlock');
      expect(ok(unlock)).toEqual({ code: 0, tail: '' });
      expect(lines(unlock)).toContain(`${MANAGEMENT}: not locked (no ${S3.bucket}/${ENV}/${MANAGEMENT}.tfstate.tflock)`);
    }, 5 * 60 * 1000);

    test("kubeconfig <env>: the management cluster's kubeconfig from the output the ManagementCluster declared", async () => {
      const r = await cli(['kubeconfig', ENV], 'kubeconfig');
      expect(ok(r)).toEqual({ code: 0, tail: '' });
      const file = path.join(dir, `${ENV}.kubeconfig`);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(file, 'utf8');
      const server = /server: (https:\/\/[\d.]+:6443)/.exec(text)?.[1];
      expect(server).toBeDefined();
      expect(text).toContain('client-key-data');
      expect(lines(r)).toContain(`wrote ${ENV}.kubeconfig (management cluster of ${ENV}, API ${server}); try: KUBECONFIG=${ENV}.kubeconfig kubectl get nodes`);
      // the workload stack is found too: it was not deployed
      const web = await cli(['kubeconfig', ENV, 'web'], 'kubeconfig-web');
      expect(web.code).toBe(1);
      expect(web.output).toContain(`kubeconfig: reading outputs of stack ${APPS} (terraform output)…`);
      expect(web.output).toMatch(new RegExp(`error: .*stack ${APPS}.*cdktf deploy ${APPS}`));
    }, 5 * 60 * 1000);

    test("management backups <env>: the store the environment's settings name", async () => {
      const empty = await cli(['management', 'backups', ENV], 'backups-empty');
      expect(ok(empty)).toEqual({ code: 0, tail: '' });
      expect(empty.output).toContain(`no backups in s3://${S3.bucket}/${ENV}/backups/`);
      const header = { format: BACKUP_FORMAT, environment: ENV, createdAt: '2026-11-25T18:00:00.000Z', clusters: [`${PREFIX}-${ENV}-web/web`], objects: 7, clusterctlVersion: 'v1.12.10' } as const;
      await new S3BackupStore(store(), S3.bucket, `${ENV}/backups/`, ENV).write(`${ENV}-20261125T180000Z.capi-backup`, sealBackup({ header, namespaces: {}, namespaceMetadata: {} }, 'e2e-consumer-team-key-0123456789'));
      const listed = await cli(['management', 'backups', ENV], 'backups');
      expect(ok(listed)).toEqual({ code: 0, tail: '' });
      expect(lines(listed)).toContain(`${ENV}-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (${PREFIX}-${ENV}-web/web)  7 objects  clusterctl v1.12.10`);
    }, 5 * 60 * 1000);
  });
}
