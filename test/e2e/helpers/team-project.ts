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

/** The team's project directory, the store's credentials, and the CLIs run in it. */
class TeamProject {
  public dir = '';
  public deployed = false;
  private s3Env: Record<string, string> = {};
  private lock: E2eLock | undefined;

  /** Installs the packed package into a fresh project with the team's main.ts and cdktf.json; takes the lane's e2e lock. */
  public async setUp(work: string, tarball: string): Promise<void> {
    this.s3Env = Object.fromEntries([...fs.readFileSync(S3_CREDENTIALS, 'utf8').matchAll(/^(?:export )?(AWS_[A-Z_]+)=['"]?([^'"\n]*)['"]?$/gm)].map((m) => [m[1], m[2]]));
    if (!(await this.store().bucketExists())) await this.store().createBucket();
    await this.clearStore(`${ENV}/backups/`);
    this.dir = path.join(work, 'team');
    buildConsumer(this.dir, tarball, { main: teamMain(), dependencies: [`cdktf@${installedVersion('cdktf')}`, 'constructs@^10.4.2'] });
    fs.writeFileSync(path.join(this.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js', projectId: 'capi-e2e-consumer-team', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} }, null, 2));
    fs.rmSync(path.join(this.dir, 'cdktf.out'), { recursive: true, force: true });
    this.lock = await acquireE2eLock({ holder: 'consumer e2e (team project)' });
  }

  /** Destroys the management stack when it may exist; a failed destroy keeps the state in the store, so the next run destroys what it holds first. */
  public async tearDown(): Promise<void> {
    try {
      if (this.dir && (this.deployed || fs.existsSync(path.join(this.dir, 'cdktf.out', 'stacks', MANAGEMENT)))) {
        const destroy = await this.cdktf(['destroy', MANAGEMENT, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy');
        if (destroy.code !== 0) console.error(`consumer e2e: destroy of ${MANAGEMENT} failed: ${tail(destroy)}`);
        else await this.clearStore(`${ENV}/`);
      }
    } finally {
      await this.lock?.release();
    }
  }

  /** The installed package's `capi-openstack`, with the toolchain, the lane's clouds.yaml and the store's credentials. */
  public cli(args: string[], logName: string): Promise<CliResult> {
    return runWithToolchain([path.join(this.dir, 'node_modules', '.bin', 'capi-openstack'), ...args], { cwd: this.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(this.dir, 'logs'), env: this.s3Env });
  }

  public cdktf(args: string[], logName: string): Promise<CliResult> {
    return cdktf(args, { cwd: this.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(this.dir, 'logs'), env: this.s3Env, timeoutSeconds: 900 });
  }

  public store(): S3Client {
    return new S3Client(S3, { accessKeyId: this.s3Env.AWS_ACCESS_KEY_ID, secretAccessKey: this.s3Env.AWS_SECRET_ACCESS_KEY });
  }

  private async clearStore(prefix: string): Promise<void> {
    for (const k of await this.store().list(prefix)) await this.store().delete(k);
  }
}

const ok = (r: CliResult) => ({ code: r.code, tail: r.code === 0 ? '' : tail(r) });
/** The non-empty output lines of a run. */
const lines = (r: CliResult) => r.output.split('\n').filter((l) => l.trim() !== '');

/** @param packed the work directory and the tarball, known once the suite's beforeAll packed it */
export function describeTeamProject(packed: () => { work: string; tarball: string }): void {
  const availability = servicesUp();
  if (!availability.ok && !REQUIRED) console.warn(`consumer e2e: the team project is skipped: ${availability.why}. LOCAL_CLOUD_REQUIRED=1 makes this a failure.`);
  const suite = availability.ok || REQUIRED ? describe : describe.skip;
  suite("a team's project: own stack ids, environment built in code, state in S3 (the operator commands of the installed package)", () => teamProjectTests(availability, packed));
}

function teamProjectTests(availability: { ok: boolean; why: string }, packed: () => { work: string; tarball: string }): void {
  const team = new TeamProject();
  beforeAll(async () => {
    if (!availability.ok) throw new Error(`the team project of the consumer e2e needs the local cloud and the local S3 server (${availability.why})`);
    await team.setUp(packed().work, packed().tarball);
  }, 10 * 60 * 1000);
  afterAll(() => team.tearDown(), 15 * 60 * 1000);

  test('validate --app-dir . runs the app and checks the environment it built in code', async () => {
    const r = await team.cli(['validate', '--app-dir', '.'], 'validate');
    expect(ok(r)).toEqual({ code: 0, tail: '' });
    expect(lines(r)).toContain(`ok  "${ENV}" (built in code by the app) (1 cluster; stacks ${MANAGEMENT}, ${APPS})`);
  }, 5 * 60 * 1000);

  test('cdktf synth writes the stacks under their own ids', async () => {
    expect(ok(await team.cdktf(['synth'], 'synth'))).toEqual({ code: 0, tail: '' });
    expect(fs.readdirSync(path.join(team.dir, 'cdktf.out', 'stacks')).sort()).toEqual([APPS, MANAGEMENT]);
    // a run that died before its destroy left its state in the store: clear it first
    if ((await team.cli(['state', 'status', ENV], 'status-before')).output.includes(`${MANAGEMENT}: state `)) {
      expect(ok(await team.cdktf(['destroy', MANAGEMENT, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-leftovers'))).toEqual({ code: 0, tail: '' });
    }
  }, 15 * 60 * 1000);

  test('the management stack deploys on the local cloud with its state in the store', async () => {
    team.deployed = true;
    expect(ok(await team.cdktf(['deploy', MANAGEMENT, '--auto-approve'], 'deploy'))).toEqual({ code: 0, tail: '' });
  }, 15 * 60 * 1000);

  test('state status <env>: both stacks of their own ids, the deployed one with its state and no lock; state unlock <env> <own stack id>', async () => {
    const r = await team.cli(['state', 'status', ENV], 'status');
    expect(ok(r)).toEqual({ code: 0, tail: '' });
    expect(lines(r)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${MANAGEMENT}: state ${S3.bucket}/${ENV}/${MANAGEMENT}\\.tfstate \\(\\d+ bytes, .*\\); not locked$`)),
        `${APPS}: no state at ${S3.bucket}/${ENV}/${APPS}.tfstate; not locked`,
      ]),
    );
    const unlock = await team.cli(['state', 'unlock', ENV, MANAGEMENT], 'unlock');
    expect(ok(unlock)).toEqual({ code: 0, tail: '' });
    expect(lines(unlock)).toContain(`${MANAGEMENT}: not locked (no ${S3.bucket}/${ENV}/${MANAGEMENT}.tfstate.tflock)`);
  }, 5 * 60 * 1000);

  test("kubeconfig <env>: the management cluster's kubeconfig from the output the ManagementCluster declared", async () => {
    const r = await team.cli(['kubeconfig', ENV], 'kubeconfig');
    expect(ok(r)).toEqual({ code: 0, tail: '' });
    const file = path.join(team.dir, `${ENV}.kubeconfig`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    const server = /server: (https:\/\/[\d.]+:6443)/.exec(text)?.[1];
    expect(server).toBeDefined();
    expect(text).toContain('client-key-data');
    expect(lines(r)).toContain(`wrote ${ENV}.kubeconfig (management cluster of ${ENV}, API ${server}); try: KUBECONFIG=${ENV}.kubeconfig kubectl get nodes`);
    // the workload stack is found too: it was not deployed
    const web = await team.cli(['kubeconfig', ENV, 'web'], 'kubeconfig-web');
    expect(web.code).toBe(1);
    expect(web.output).toContain(`kubeconfig: reading outputs of stack ${APPS} (terraform output)…`);
    expect(web.output).toMatch(new RegExp(`error: .*stack ${APPS}.*cdktf deploy ${APPS}`));
  }, 5 * 60 * 1000);

  test("management backups <env>: the store the environment's settings name", async () => {
    const empty = await team.cli(['management', 'backups', ENV], 'backups-empty');
    expect(ok(empty)).toEqual({ code: 0, tail: '' });
    expect(empty.output).toContain(`no backups in s3://${S3.bucket}/${ENV}/backups/`);
    const header = { format: BACKUP_FORMAT, environment: ENV, createdAt: '2026-11-25T18:00:00.000Z', clusters: [`${PREFIX}-${ENV}-web/web`], objects: 7, clusterctlVersion: 'v1.12.10' } as const;
    await new S3BackupStore(team.store(), S3.bucket, `${ENV}/backups/`, ENV).write(`${ENV}-20261125T180000Z.capi-backup`, sealBackup({ header, namespaces: {}, namespaceMetadata: {} }, 'e2e-consumer-team-key-0123456789'));
    const listed = await team.cli(['management', 'backups', ENV], 'backups');
    expect(ok(listed)).toEqual({ code: 0, tail: '' });
    expect(lines(listed)).toContain(`${ENV}-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (${PREFIX}-${ENV}-web/web)  7 objects  clusterctl v1.12.10`);
  }, 5 * 60 * 1000);
}
