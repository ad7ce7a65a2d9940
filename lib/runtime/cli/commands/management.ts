/** `management backup|restore|backups <env>`: the Cluster API state of the management cluster, kept safe. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadEnvironmentFile } from '../../../config/load';
import { pinnedManifests } from '../../../config/provider-manifests';
import { EnvironmentConfig } from '../../../config/resolve';
import { EXIT_BAD_CONFIG } from '../../env-config';
import { BackupContent, BackupError, backupFileName, checkBackupKey, openBackup, readBackupHeader, sealBackup } from '../../management/backup-archive';
import { ManagementTarget, takeBackup } from '../../management/backup';
import { BackupStore, latestBackup, LocalBackupStore, S3BackupStore } from '../../management/backup-store';
import { findS3Credentials, S3Client } from '../../state/s3-client';
import { Clusterctl, ClusterctlError } from '../../management/clusterctl';
import { ManagementApi } from '../../management/management-api';
import { restoreBackup } from '../../management/restore';
import { upgradeControllers } from '../../management/upgrade';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath, environmentFile, loadName } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { credentialsFromKubeconfig, writePrivateFile } from '../kubeconfig/kubeconfig-file';
import { readStackOutputs, requireOutput } from '../kubeconfig/stack-outputs';
import { cdktfOutDir } from './kubeconfig';
import { replacementOf, replaceVm } from './management-replace';

const ACTIONS = ['backup', 'restore', 'backups', 'replace', 'upgrade'] as const;
export const BACKUP_KEY_VARIABLE = 'CAPI_OPENSTACK_BACKUP_KEY';

export const managementSpec: CommandSpec = {
  name: 'management',
  usage: '<backup|restore|backups|replace|upgrade> <env>',
  summary: 'Back up the management cluster\'s Cluster API state, restore it into a new management cluster, list backups.',
  details: [
    'backup <env>: every Cluster of the management cluster with everything `clusterctl move` carries (objects and Secrets), one namespace at a time (clusterctl pauses a namespace\'s clusters while it reads them). Written encrypted to <backup-dir>/<env>/<env>-<UTC time>.capi-backup.',
    'restore <env>: the newest backup (or --from <file>) into the management cluster, which must not hold those clusters yet (a new VM, or a management cluster rebuilt after a loss). The controllers then adopt the servers, networks and load balancers that still exist: nothing is created or deleted in OpenStack.',
    'replace <env>: a new management VM, deliberately (a plan never replaces it): plans the replacement of the server and its boot volume in the synthesized stack (terraform plan -replace, saved), prints the plan and refuses it when it changes anything else (another pending change: deploy or undo it first); then backs up the clusters (refused without a backup when the management cluster holds clusters), applies exactly that saved plan (the newest image and the current first-boot settings; the readiness gate waits for the new management cluster) and restores the backup into it. Run `cdktf synth` first.',
    'Backups go to the environment\'s object store when it has one (stateBackend: the state bucket, under <keyPrefix>/backups/, with the AWS_* credentials of `state`), else to ./backups/<env>/ (or --backup-dir).',
    'upgrade <env>: the running controllers to the environment\'s versions (versions.clusterApi for core and kubeadm, capo, caaph), in place over the management API: refused for a missing provider or a downgrade; a backup first; then clusterctl upgrade plan and apply for exactly the providers that change; then clusterctl\'s inventory must show the new versions. With management.providerManifests the components are the pinned files, each checked against its SHA-256 before anything changes (from their URLs, or from --repository), and versions the pins are not of are refused; without it clusterctl downloads them unverified from the providers\' releases, or takes --repository as it is (it says so). The management stack runs it when versions change.',
    'backups <env>: the environment\'s backups, oldest first, with their time, clusters and object counts (no key needed).',
    `The key is the environment variable ${BACKUP_KEY_VARIABLE} (at least 16 characters; the same one restores); it is never read from the command line. clusterctl is --clusterctl, else CAPI_OPENSTACK_CLUSTERCTL, else the clusterctl on PATH, else (Cluster API v1.12) the pinned release binary, downloaded once into ~/.cache/capi-openstack-cdktf/clusterctl and verified by its SHA-256; its minor must be the environment's versions.clusterApi minor.`,
    'The management cluster is reached as `kubeconfig` reaches it: --kubeconfig, else existingManagementCluster of the environment file, else the "kubeconfig" output of stack <env>-management.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'backup-dir', value: '<directory>', description: 'Keep backups in this directory, one folder per environment (default: the state store with stateBackend, else ./backups).' },
    { name: 'from', value: '<file>', description: 'restore: this backup (a file, or a name from `backups`) instead of the newest. replace: restore it instead of taking one (when the old VM no longer answers).' },
    { name: 'repository', value: '<dir>', description: 'upgrade: a local clusterctl repository (<dir>/<provider label>/<version>/<components file>, with metadata.yaml) instead of the pinned URLs (its files are verified against the pins) or the providers\' releases.' },
    { name: 'kubeconfig', value: '<file>', description: 'Kubeconfig of the management cluster (default: see above).' },
    { name: 'context', value: '<name>', description: 'Context in --kubeconfig (default: its current context).' },
    { name: 'clusterctl', value: '<path>', description: 'clusterctl binary (default: CAPI_OPENSTACK_CLUSTERCTL, else clusterctl on PATH).' },
    { name: 'cdktf-out', value: '<dir>', description: 'Synthesis output directory (default: "output" of cdktf.json, else cdktf.out).' },
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
  const env = loadEnvironmentFile(loadName(io.cwd, environmentFile(io.cwd, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, envName)));
  try {
    const store = backupStore(args, io, env);
    if (action === 'backups') return listBackups(store, io);
    // what replace needs from the project, checked before anything runs
    const replacement = action === 'replace' ? replacementOf(args, io, env) : undefined;
    const key = checkBackupKey(io.env[BACKUP_KEY_VARIABLE], BACKUP_KEY_VARIABLE);
    const clusterctl = await Clusterctl.locate(stringOption(args, 'clusterctl'), io.env, env.spec.versions.clusterApi, undefined, (l) => io.err(`management ${action}: ${l}`));
    return await withTarget(args, io, env, async (target) => {
      const progress = (l: string) => io.err(`management ${action}: ${l}`);
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
      const given = stringOption(args, 'from');
      if (replacement) return replaceVm(replacement, io, env, given ? () => openGiven(io, env, key, store, given) : backup, (content) => restoreBackup({ content, target, clusterctl, env: io.env, progress }));
      const content = await openGiven(io, env, key, store, given ?? (await latestBackup(store, env.name)));
      progress(`restoring the backup taken ${content.header.createdAt} (${content.header.clusters.join(', ') || 'no clusters'})`);
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

/** `--from`: a local file, else the name of a backup in the store. */
async function openGiven(io: CliIo, env: EnvironmentConfig, key: string, store: BackupStore, from: string): Promise<BackupContent> {
  const file = path.resolve(io.cwd, from);
  const local = fs.existsSync(file) && fs.statSync(file).isFile();
  const what = local ? displayPath(io.cwd, file) : shown(io, `${store.location}${store.location.endsWith('/') ? '' : '/'}${from}`);
  const content = openBackup(local ? fs.readFileSync(file) : await store.read(from), key, what);
  if (content.header.environment !== env.name) throw new BackupError(`${what} is a backup of environment ${content.header.environment}, not of ${env.name}`);
  return content;
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

async function listBackups(store: BackupStore, io: CliIo): Promise<number> {
  const names = await store.list();
  if (names.length === 0) io.err(`no backups in ${shown(io, store.location)}`);
  for (const n of names) {
    const h = readBackupHeader(await store.read(n), n);
    io.out(`${n}  ${h.createdAt}  ${h.clusters.length} clusters (${h.clusters.join(', ') || 'none'})  ${h.objects} objects  clusterctl ${h.clusterctlVersion}`);
  }
  return 0;
}

/** The management cluster as clusterctl (a kubeconfig file) and the commands (its API) reach it. */
async function withTarget<T>(args: ParsedArgs, io: CliIo, env: EnvironmentConfig, use: (target: ManagementTarget) => Promise<T>): Promise<T> {
  let file = stringOption(args, 'kubeconfig');
  let context = stringOption(args, 'context');
  const byo = env.spec.existingManagementCluster;
  let temp: string | undefined;
  if (!file && byo) {
    file = path.resolve(path.dirname(path.resolve(io.cwd, env.file)), byo.kubeconfigFile);
    context = context ?? byo.context;
  }
  if (!file) {
    const stack = env.managementStackName;
    io.err(`management: reading the kubeconfig output of stack ${stack} (terraform output)…`);
    const outputs = await readStackOutputs(path.join(path.resolve(io.cwd, stringOption(args, 'cdktf-out') ?? cdktfOutDir(io.cwd)), 'stacks', stack), stack, { projectDir: io.cwd, env: io.env });
    const text = requireOutput(outputs, stack, 'kubeconfig');
    if (typeof text !== 'string') throw new CliError(`output "kubeconfig" of stack ${stack} is not a kubeconfig`);
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-mgmt-'));
    file = path.join(temp, 'kubeconfig');
    writePrivateFile(file, text);
  } else {
    file = path.resolve(io.cwd, file);
    if (!fs.existsSync(file)) throw new CliError(`kubeconfig ${file} does not exist`);
  }
  try {
    const creds = credentialsFromKubeconfig(fs.readFileSync(file, 'utf8'), displayPath(io.cwd, file), { context, baseDir: path.dirname(file) });
    return await use({ api: new ManagementApi(creds), kubeconfigFile: file, context });
  } finally {
    if (temp) fs.rmSync(temp, { recursive: true, force: true });
  }
}
