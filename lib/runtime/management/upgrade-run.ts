/**
 * The controller upgrade as the management stack runs it (terraform_data + local-exec, when
 * `versions` change): reads its settings from the environment, does nothing when clusterctl's
 * inventory already holds the versions (a new VM), else backs up, upgrades and waits until the
 * management cluster is ready again. With pinned manifests (UPGRADE_PROVIDER_MANIFESTS, from
 * `management.providerManifests`) only verified components are installed. The operator's
 * environment gives CAPI_OPENSTACK_BACKUP_KEY, and optionally CAPI_OPENSTACK_CLUSTERCTL and
 * CAPI_OPENSTACK_CLUSTERCTL_REPOSITORY (a local repository: with pins, its files are verified).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { stringify } from 'yaml';
import { CliConfigError, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK, Env, optional, required, settingsOrReport, unescapePem } from '../env-config';
import { waitForManagement } from '../readiness/wait';
import { findS3Credentials, S3Client } from '../state/s3-client';
import { backupFileName, checkBackupKey, sealBackup } from './backup-archive';
import { takeBackup } from './backup';
import { BackupStore, LocalBackupStore, S3BackupStore } from './backup-store';
import { Clusterctl } from './clusterctl';
import { parsePinnedManifests } from './component-repository';
import { ManagementApi, ManagementApiAccess } from './management-api';
import { upgradeControllers, upgradeItems } from './upgrade';
import { ControllerVersions } from './upgrade-plan';
import type { ManifestDownload } from '../../config/provider-manifests';
import { BackupError } from './backup-archive';

interface RunSettings {
  readonly environment: string;
  readonly access: Required<Pick<ManagementApiAccess, 'server' | 'caPem' | 'certPem' | 'keyPem'>>;
  readonly desired: ControllerVersions;
  readonly store: () => BackupStore;
  readonly readyTimeoutMinutes: number;
  /** The pinned manifests; undefined when the environment pins none. */
  readonly pinned?: readonly ManifestDownload[];
}

function readSettings(env: Env): RunSettings {
  const pem = (name: string) => unescapePem(required(env, name, 'PEM text'));
  const version = (name: string) => {
    const v = required(env, name, 'a version like v1.12.10');
    if (!/^v\d+\.\d+\.\d+$/.test(v)) throw new CliConfigError(`${name} must be a version like v1.12.10, found "${v.slice(0, 40)}"`);
    return v;
  };
  const environment = required(env, 'UPGRADE_ENVIRONMENT', 'the environment name');
  const bucket = optional(env, 'UPGRADE_BACKUP_S3_BUCKET');
  const store = (): BackupStore => {
    if (!bucket) return new LocalBackupStore(path.resolve(required(env, 'UPGRADE_BACKUP_DIR', 'the backup directory'), environment), environment);
    const endpoint = required(env, 'UPGRADE_BACKUP_S3_ENDPOINT', 'the state store endpoint');
    const credentials = findS3Credentials(env as NodeJS.ProcessEnv);
    if (!credentials) throw new CliConfigError(`the backup before the upgrade goes to the state store (${endpoint}): export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
    const s3 = new S3Client({ endpoint, bucket, region: optional(env, 'UPGRADE_BACKUP_S3_REGION') ?? 'us-east-1' }, credentials.credentials);
    return new S3BackupStore(s3, bucket, required(env, 'UPGRADE_BACKUP_S3_PREFIX', 'the key prefix of backups'), environment);
  };
  return {
    environment,
    access: { server: required(env, 'KUBE_SERVER', 'the API server URL'), caPem: pem('KUBE_CA_PEM'), certPem: pem('KUBE_CLIENT_CERT_PEM'), keyPem: pem('KUBE_CLIENT_KEY_PEM') },
    desired: { clusterApi: version('UPGRADE_CLUSTER_API'), capo: version('UPGRADE_CAPO'), caaph: version('UPGRADE_CAAPH') },
    store,
    readyTimeoutMinutes: Number(optional(env, 'READY_TIMEOUT_MINUTES') ?? 20),
    pinned: pinnedFromEnv(env),
  };
}

function pinnedFromEnv(env: Env): ManifestDownload[] | undefined {
  const text = optional(env, 'UPGRADE_PROVIDER_MANIFESTS');
  if (text === undefined) return undefined;
  try {
    return parsePinnedManifests(text, 'UPGRADE_PROVIDER_MANIFESTS');
  } catch (e) {
    if (e instanceof BackupError) throw new CliConfigError(e.message);
    throw e;
  }
}

/** A kubeconfig of the admin certificate, for clusterctl. */
function kubeconfigText(a: RunSettings['access']): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'management', cluster: { server: a.server, 'certificate-authority-data': b64(a.caPem) } }],
    users: [{ name: 'admin', user: { 'client-certificate-data': b64(a.certPem), 'client-key-data': b64(a.keyPem) } }],
    contexts: [{ name: 'management', context: { cluster: 'management', user: 'admin' } }],
    'current-context': 'management',
  });
}

export async function runUpgradeFromEnv(env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const s = settingsOrReport('upgrade-management', () => readSettings(env), err);
  if (!s) return EXIT_BAD_CONFIG;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-upgrade-'));
  try {
    const kubeconfigFile = path.join(work, 'kubeconfig');
    fs.writeFileSync(kubeconfigFile, kubeconfigText(s.access), { mode: 0o600 });
    const target = { api: new ManagementApi(s.access), kubeconfigFile };
    const v = s.desired;
    if ((await upgradeItems({ target, desired: v })).length === 0) {
      out(`upgrade-management: the controllers already run Cluster API ${v.clusterApi}, CAPO ${v.capo}, CAAPH ${v.caaph}`);
      return EXIT_OK;
    }
    const key = checkBackupKey(env.CAPI_OPENSTACK_BACKUP_KEY, 'CAPI_OPENSTACK_BACKUP_KEY');
    const clusterctl = await Clusterctl.locate(undefined, env, v.clusterApi, undefined, (l) => out(`upgrade-management: ${l}`));
    const store = s.store();
    const progress = (l: string) => out(`upgrade-management: ${l}`);
    const backup = async () => {
      const content = await takeBackup({ environment: s.environment, target, clusterctl, env, progress });
      progress(`backup ${await store.write(backupFileName(s.environment, new Date(content.header.createdAt)), sealBackup(content, key))}`);
    };
    const items = await upgradeControllers({ target, clusterctl, desired: v, components: { pinned: s.pinned, repository: env.CAPI_OPENSTACK_CLUSTERCTL_REPOSITORY || undefined }, env, progress, backup });
    progress(`${items.map((i) => i.label).join(', ')} applied; waiting until the management cluster is ready again`);
    await waitForManagement({ server: s.access.server, caPem: s.access.caPem, certPem: s.access.certPem, keyPem: s.access.keyPem, timeoutMs: s.readyTimeoutMinutes * 60_000, intervalMs: 10_000, log: out });
    return EXIT_OK;
  } catch (e) {
    err(`upgrade-management: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
