/** `management backup|restore|backups <env>`: the Cluster API state of the management cluster, kept safe. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pinnedManifests } from '../../../config/provider-manifests';
import { EnvironmentConfig } from '../../../config/resolve';
import { EXIT_BAD_CONFIG } from '../../env-config';
import { BACKUP_FORMAT, BackupContent, BackupError, backupFileName, checkBackupKey, LEGACY_BACKUP_FORMAT, LEGACY_BACKUP_SWITCH, OpenExpectation, openBackup, sealBackup } from '../../management/backup-archive';
import { ManagementTarget, takeBackup } from '../../management/backup';
import { BackupStore, LocalBackupStore, newestBackup, S3BackupStore, scanBackups } from '../../management/backup-store';
import { findS3Credentials, S3Client } from '../../state/s3-client';
import { Clusterctl, ClusterctlError } from '../../management/clusterctl';
import { ManagementApi } from '../../management/management-api';
import { restoreBackup } from '../../management/restore';
import { upgradeControllers } from '../../management/upgrade';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath, LocatedEnvironment, locateEnvironment } from '../environment-files';
import { environmentStacks, EnvironmentStacks, managementStack } from '../environment-stacks';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { credentialsFromKubeconfig, readKubeconfigFile, writePrivateFile } from '../kubeconfig/kubeconfig-file';
import { readStackOutputs, requireOutput } from '../kubeconfig/stack-outputs';
import { replacementOf, replaceVm } from './management-replace';

const ACTIONS = ['backup', 'restore', 'backups', 'replace', 'upgrade'] as const;
export const BACKUP_KEY_VARIABLE = 'CAPI_OPENSTACK_BACKUP_KEY';

export const managementSpec: CommandSpec = {
  name: 'management',
  usage: '<backup|restore|backups|replace|upgrade> <env>',
  summary: 'Back up the management cluster\'s Cluster API state, restore it into a new management cluster, list backups.',
  details: [
    'backup <env>: every Cluster of the management cluster with everything `clusterctl move` carries (objects and Secrets), one namespace at a time (clusterctl pauses a namespace\'s clusters while it reads them). Written encrypted to <backup-dir>/<env>/<env>-<UTC time>.capi-backup.',
    'restore <env>: the newest backup (by the time in its header, which the key authenticates; or --from <file>) into the management cluster, which must not hold those clusters yet (a new VM, or a management cluster rebuilt after a loss). The controllers then adopt the servers, networks and load balancers that still exist: nothing is created or deleted in OpenStack.',
    'replace <env>: a new management VM, deliberately (a plan never replaces it): plans the replacement of the server and its boot volume in the synthesized stack (terraform plan -replace, saved), prints the plan and refuses it when it changes anything else (another pending change: deploy or undo it first); then backs up the clusters (refused without a backup when the management cluster holds clusters), applies exactly that saved plan (the newest image and the current first-boot settings; the readiness gate waits for the new management cluster) and restores the backup into it. Run `cdktf synth` first.',
    'Backups go to the environment\'s object store when it has one (stateBackend: the state bucket, under <keyPrefix>/backups/, with the AWS_* credentials of `state`), else to ./backups/<env>/ (or --backup-dir).',
    'upgrade <env>: the running controllers to the environment\'s versions (versions.clusterApi for core and kubeadm, capo, caaph), in place over the management API: refused for a missing provider or a downgrade; a backup first; then clusterctl upgrade plan and apply for exactly the providers that change; then clusterctl\'s inventory must show the new versions. With management.providerManifests the components are the pinned files, each checked against its SHA-256 before anything changes (from their URLs, or from --repository), and versions the pins are not of are refused; without it clusterctl downloads them unverified from the providers\' releases, or takes --repository as it is (it says so). The management stack runs it when versions change.',
    'backups <env>: the environment\'s backups, oldest first, with their time, clusters and object counts, as their headers state them (no key needed; the key authenticates a header when its backup is opened).',
    `Backups written before ${BACKUP_FORMAT} (${LEGACY_BACKUP_FORMAT}) have a header that is not authenticated: they are never chosen as the newest, and open only with --from <file> ${LEGACY_BACKUP_SWITCH}, which takes their environment (the namespaces\' capi-openstack-cdktf/environment label) and clusters from their encrypted content.`,
    `The key is the environment variable ${BACKUP_KEY_VARIABLE} (at least 16 characters; the same one restores); it is never read from the command line. clusterctl is --clusterctl, else CAPI_OPENSTACK_CLUSTERCTL, else the clusterctl on PATH, else (Cluster API v1.12) the pinned release binary, downloaded once into ~/.cache/capi-openstack-cdktf/clusterctl and verified by its SHA-256; its minor must be the environment's versions.clusterApi minor.`,
    'The management cluster is reached as `kubeconfig` reaches it: --kubeconfig, else existingManagementCluster of the environment, else the kubeconfig output of the stack holding its ManagementCluster in what the app synthesized (any stack id; <env>-management when the app did not record it).',
    '<env> is an environment file of --dir, else an environment the app recorded when it synthesized (one built in code needs no file).',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'backup-dir', value: '<directory>', description: 'Keep backups in this directory, one folder per environment (default: the state store with stateBackend, else ./backups).' },
    { name: 'from', value: '<file>', description: 'restore: this backup (a file, or a name from `backups`) instead of the newest. replace: restore it instead of taking one (when the old VM no longer answers).' },
    { name: LEGACY_BACKUP_SWITCH.slice(2), description: `restore, replace: open the --from backup although it is a ${LEGACY_BACKUP_FORMAT} file, whose header is not authenticated (its environment and clusters are taken from its content).` },
    { name: 'repository', value: '<dir>', description: 'upgrade: a local clusterctl repository (<dir>/<provider label>/<version>/<components file>, with metadata.yaml) instead of the pinned URLs (its files are verified against the pins) or the providers\' releases.' },
    { name: 'kubeconfig', value: '<file>', description: 'Kubeconfig of the management cluster (default: see above).' },
    { name: 'context', value: '<name>', description: 'Context in --kubeconfig (default: its current context).' },
    { name: 'clusterctl', value: '<path>', description: 'clusterctl binary (default: CAPI_OPENSTACK_CLUSTERCTL, else clusterctl on PATH).' },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
  ],
  minPositionals: 2,
  maxPositionals: 2,
  examples: [
    'CAPI_OPENSTACK_BACKUP_KEY=… capi-openstack management backup prod',
    'capi-openstack management backups prod',
    'CAPI_OPENSTACK_BACKUP_KEY=… capi-openstack management replace prod',
    'CAPI_OPENSTACK_BACKUP_KEY=… capi-openstack management restore prod --from backups/prod/prod-20261125T180000Z.capi-backup',
  ],
};

export async function runManagement(args: ParsedArgs, io: CliIo): Promise<number> {
  const [action, envName] = args.positionals;
  if (!(ACTIONS as readonly string[]).includes(action)) throw new CliError(`management: expected one of ${ACTIONS.join(', ')}, found "${action}"`, EXIT_BAD_CONFIG);
  const project = CdktfProject.of(args, io);
  const located = locateEnvironment(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, envName, project);
  const env = located.config;
  const stacks = () => environmentStacks(project, io.cwd, env.name, () => located);
  try {
    const store = backupStore(args, io, env);
    if (action === 'backups') return listBackups(store, io, env.name);
    // what replace needs from the project, checked before anything runs
    const replacement = action === 'replace' ? replacementOf(project, env, stacks) : undefined;
    const allowLegacy = args.options[LEGACY_BACKUP_SWITCH.slice(2)] === true;
    if (allowLegacy && (!['restore', 'replace'].includes(action) || !stringOption(args, 'from'))) {
      throw new CliError(`management ${action}: ${LEGACY_BACKUP_SWITCH} opens the backup named by --from (restore, replace): a ${LEGACY_BACKUP_FORMAT} backup's time is not authenticated, so it is never chosen as the newest`, EXIT_BAD_CONFIG);
    }
    const key = checkBackupKey(io.env[BACKUP_KEY_VARIABLE], BACKUP_KEY_VARIABLE);
    const progress = (l: string) => io.err(`management ${action}: ${l}`);
    const given = stringOption(args, 'from');
    // the backup to restore, chosen and authenticated before anything reaches clusterctl or the management cluster
    const chosen = action === 'restore' || (replacement !== undefined && given !== undefined) ? await chooseBackup(io, env, key, store, given, allowLegacy, progress) : undefined;
    const clusterctl = await Clusterctl.locate(stringOption(args, 'clusterctl'), io.env, env.spec.versions.clusterApi, undefined, progress);
    return await withTarget(args, io, located, project, stacks, async (target) => {
      const backup = async () => {
        const t0 = Date.now();
        const content = await takeBackup({ environment: env.name, target, clusterctl, env: io.env, progress });
        const sealed = sealBackup(content, key);
        const where = await store.write(backupFileName(env.name, new Date(content.header.createdAt)), sealed);
        io.out(`wrote ${shown(io, where)} (${content.header.clusters.length} clusters, ${content.header.objects} objects, ${sealed.length} bytes, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        return content;
      };
      if (action === 'backup') {
        await backup();
        return 0;
      }
      if (action === 'upgrade') return upgrade(io, env, target, clusterctl, stringOption(args, 'repository'), backup);
      if (replacement) return replaceVm(replacement, io, env, chosen ? async () => chosen : backup, (content) => restoreBackup({ content, target, clusterctl, env: io.env, progress }));
      const content = chosen;
      if (!content) throw new CliError(`management ${action}: no backup was chosen`); // restore chose one above
      const t0 = Date.now();
      await restoreBackup({ content, target, clusterctl, env: io.env, progress });
      io.out(`restored ${content.header.clusters.length} clusters (${content.header.objects} objects) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      return 0;
    });
  } catch (e) {
    if (e instanceof BackupError || e instanceof ClusterctlError) throw new CliError(`management ${action} ${env.name}: ${e.message}`);
    throw e;
  }
}

async function upgrade(io: CliIo, env: EnvironmentConfig, target: ManagementTarget, clusterctl: Clusterctl, repository: string | undefined, backup: () => Promise<unknown>): Promise<number> {
  const v = env.spec.versions;
  const t0 = Date.now();
  const progress = (l: string) => io.err(`management upgrade: ${l}`);
  const components = { pinned: pinnedManifests(env.spec), repository: repository && path.resolve(io.cwd, repository) };
  const items = await upgradeControllers({ target, clusterctl, desired: { clusterApi: v.clusterApi, capo: v.capo, caaph: v.caaph }, components, env: io.env, progress, backup });
  if (items.length === 0) io.out(`the controllers of ${env.name} already run Cluster API ${v.clusterApi}, CAPO ${v.capo}, CAAPH ${v.caaph}`);
  else io.out(`upgraded ${items.map((i) => i.label).join(', ')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return 0;
}

/**
 * The backup to restore: `--from`, else the newest by the time its header states; opened (the
 * header authenticated with the content) as a backup of this environment, and, when chosen as the
 * newest, of the time that chose it.
 */
async function chooseBackup(io: CliIo, env: EnvironmentConfig, key: string, store: BackupStore, given: string | undefined, allowLegacy: boolean, progress: (line: string) => void): Promise<BackupContent> {
  const { name, createdAt } = given ? { name: given, createdAt: undefined } : await newestBackup(store, env.name).then((n) => ({ name: n.name, createdAt: n.header.createdAt }));
  const content = await openGiven(io, env, key, store, name, { allowLegacy, createdAt });
  const h = content.header;
  const taken = h.format === BACKUP_FORMAT ? `taken ${h.createdAt}` : `of the previous format, environment and clusters taken from its content (its header says ${h.createdAt}, which nothing authenticates)`;
  progress(`backup ${name}: ${taken}; ${h.clusters.length} clusters (${h.clusters.join(', ') || 'none'}), ${h.objects} objects`);
  return content;
}

/** `--from`: a local file, else the name of a backup in the store; opened as a backup of this environment, authenticated. */
async function openGiven(io: CliIo, env: EnvironmentConfig, key: string, store: BackupStore, from: string, expect: Omit<OpenExpectation, 'environment'>): Promise<BackupContent> {
  const file = path.resolve(io.cwd, from);
  const local = fs.existsSync(file) && fs.statSync(file).isFile();
  const what = local ? displayPath(io.cwd, file) : shown(io, `${store.location}${store.location.endsWith('/') ? '' : '/'}${from}`);
  return openBackup(local ? fs.readFileSync(file) : await store.read(from), key, what, { ...expect, environment: env.name });
}

/** The environment's object store when it has one (unless --backup-dir), else ./backups/<env>. */
function backupStore(args: ParsedArgs, io: CliIo, env: EnvironmentConfig): BackupStore {
  const dir = stringOption(args, 'backup-dir');
  const backend = env.spec.stateBackend;
  if (backend && !dir) {
    const credentials = findS3Credentials(io.env);
    if (!credentials) throw new CliError(`environment ${env.name} keeps its backups in its state store (${backend.endpoint}): export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials ${env.name})"), or give --backup-dir`);
    const s3 = new S3Client({ endpoint: backend.endpoint, bucket: backend.bucket, region: backend.region }, credentials.credentials);
    return new S3BackupStore(s3, backend.bucket, `${backend.keyPrefix ?? env.name}/backups/`, env.name);
  }
  return new LocalBackupStore(path.join(path.resolve(io.cwd, dir ?? 'backups'), env.name), env.name);
}

function shown(io: CliIo, where: string): string {
  return where.startsWith('s3://') ? where : displayPath(io.cwd, where);
}

/** As the headers state it (checked for shape, not yet authenticated: that needs the key and the whole file). */
async function listBackups(store: BackupStore, io: CliIo, environment: string): Promise<number> {
  const entries = await scanBackups(store);
  if (entries.length === 0) io.err(`no backups in ${shown(io, store.location)}`);
  for (const { name, header: h, problem } of entries) {
    if (!h) {
      io.out(`${name}  unreadable: ${problem}`);
      continue;
    }
    const note = h.format === LEGACY_BACKUP_FORMAT ? `  ${LEGACY_BACKUP_FORMAT}: header not authenticated, opens only with --from and ${LEGACY_BACKUP_SWITCH}` : h.environment !== environment ? `  a backup of environment ${h.environment}: never restored into ${environment}` : '';
    io.out(`${name}  ${h.createdAt}  ${h.clusters.length} clusters (${h.clusters.join(', ') || 'none'})  ${h.objects} objects  clusterctl ${h.clusterctlVersion}${note}`);
  }
  return 0;
}

/** The management cluster as clusterctl (a kubeconfig file) and the commands (its API) reach it. */
async function withTarget<T>(args: ParsedArgs, io: CliIo, located: LocatedEnvironment, project: CdktfProject, stacks: () => EnvironmentStacks, use: (target: ManagementTarget) => Promise<T>): Promise<T> {
  let file = stringOption(args, 'kubeconfig');
  let context = stringOption(args, 'context');
  const byo = located.config.spec.existingManagementCluster;
  let temp: string | undefined;
  if (!file && byo) {
    file = path.resolve(located.baseDir, byo.kubeconfigFile);
    context = context ?? byo.context;
  }
  if (!file) {
    const stack = managementStack(stacks(), project);
    const name = stack.outputs.kubeconfig;
    io.err(`management: reading the kubeconfig output of stack ${stack.id} (terraform output)…`);
    const outputs = await readStackOutputs(stack.dir, stack.id, { projectDir: project.dir, env: io.env });
    const text = requireOutput(outputs, stack.id, name);
    if (typeof text !== 'string') throw new CliError(`output "${name}" of stack ${stack.id} is not a kubeconfig`);
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-mgmt-'));
    file = path.join(temp, 'kubeconfig');
    writePrivateFile(file, text);
  } else {
    file = path.resolve(io.cwd, file);
    if (!fs.existsSync(file)) throw new CliError(`kubeconfig ${file} does not exist`);
  }
  try {
    const creds = credentialsFromKubeconfig(readKubeconfigFile(file), displayPath(io.cwd, file), { context, baseDir: path.dirname(file) });
    return await use({ api: new ManagementApi(creds), kubeconfigFile: file, context });
  } finally {
    if (temp) fs.rmSync(temp, { recursive: true, force: true });
  }
}
