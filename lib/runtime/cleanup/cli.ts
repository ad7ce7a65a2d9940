/**
 * The command-line side of the leftovers cleanup (bin/cleanup-cluster-leftovers.ts): reads and
 * checks the environment, runs the cleanup, maps the outcome to an exit code and one clear line.
 * Never prints a password, a secret or the CA.
 *
 * Environment (empty = unset). Who logs in, one of:
 *   CAPI_CLEANUP_CLOUD                         a clouds.yaml entry (password or application credential),
 *   CAPI_CLEANUP_CLOUDS_FILE                     found like the OpenStack clients do, or in this file
 *   CAPI_CLEANUP_AUTH_URL                      Keystone URL, with
 *   CAPI_CLEANUP_APPLICATION_CREDENTIAL_ID       an application credential
 *   CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET
 * and:
 *   CAPI_CLEANUP_REGION                        endpoint region (default: the cloud's region_name, else any)
 *   CAPI_CLEANUP_INTERFACE                     public | internal | admin (default: the cloud's, else public)
 *   CAPI_CLEANUP_CA_PEM / CAPI_CLEANUP_CA_FILE private CA, as PEM text or a file (default: the cloud's cacert, else system CAs)
 *   CAPI_CLEANUP_CLUSTER_NAME                  OCCM --cluster-name, also Cinder CSI --cluster (required)
 *   CAPI_CLEANUP_CSI_CLUSTER_NAME              Cinder CSI --cluster when it differs
 *   CAPI_CLEANUP_MACHINE_NETWORK               wait until no server of the project is on this network
 *   CAPI_CLEANUP_VOLUMES                       delete | keep (default delete)
 *   CAPI_CLEANUP_TIMEOUT_MINUTES               bound of the whole run (default 20)
 *   CAPI_CLEANUP_POLL_SECONDS                  between looks at resources being deleted (default 5)
 *   CAPI_CLEANUP_DRY_RUN                       1: list what would be deleted, delete nothing
 */
import { X509Certificate } from 'crypto';
import { readBoundedFile } from '../../config/bounded-file';
import { MAX_CA_FILE_BYTES } from '../../config/ca-file';
import { CloudsFileError } from '../../config/clouds-file';
import { CliConfigError, Env, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK, optional, positive, required, settingsOrReport, unescapePem } from '../env-config';
import { credentialsFromCloudsYaml } from './clouds-yaml';
import { CleanupError, CleanupOptions, cleanupClusterLeftovers } from './leftovers';
import { OpenStackApiError, OpenStackCredentials } from '../openstack-session';

export { CliConfigError, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK } from '../env-config';

/** Cinder CSI's default `--cluster`: every cluster left at the default shares it, so it identifies nothing. */
export const CSI_DEFAULT_CLUSTER = 'kubernetes';


export type CliConfig = Omit<CleanupOptions, 'log'>;

const NAME = /^[A-Za-z0-9][-A-Za-z0-9_.]*$/;

export function readCliConfig(env: Env): CliConfig {
  const login = readLogin(env);
  const occmClusterName = clusterName(env, 'CAPI_CLEANUP_CLUSTER_NAME', true)!;
  const csiClusterName = clusterName(env, 'CAPI_CLEANUP_CSI_CLUSTER_NAME', false) ?? occmClusterName;
  const volumes = optional(env, 'CAPI_CLEANUP_VOLUMES') ?? 'delete';
  if (volumes !== 'delete' && volumes !== 'keep') throw new CliConfigError(`CAPI_CLEANUP_VOLUMES must be delete or keep (got '${volumes}')`);
  if (volumes === 'delete' && csiClusterName === CSI_DEFAULT_CLUSTER) {
    throw new CliConfigError(
      `the Cinder CSI cluster name is '${CSI_DEFAULT_CLUSTER}', Cinder CSI's default: every cluster that keeps the default marks its volumes so, ` +
        'which would delete other clusters\' volumes; give Cinder CSI a cluster-specific --cluster, or set CAPI_CLEANUP_VOLUMES=keep',
    );
  }
  const endpointInterface = (optional(env, 'CAPI_CLEANUP_INTERFACE') ?? login.endpointInterface ?? 'public').toLowerCase().replace(/url$/, '');
  if (!['public', 'internal', 'admin'].includes(endpointInterface)) {
    throw new CliConfigError(`CAPI_CLEANUP_INTERFACE must be public, internal or admin (got '${env.CAPI_CLEANUP_INTERFACE}')`);
  }
  const machineNetworkName = optional(env, 'CAPI_CLEANUP_MACHINE_NETWORK');
  const dryRun = optional(env, 'CAPI_CLEANUP_DRY_RUN');
  if (dryRun !== undefined && dryRun !== '0' && dryRun !== '1') throw new CliConfigError(`CAPI_CLEANUP_DRY_RUN must be 0 or 1 (got '${dryRun}')`);
  return {
    ...login,
    region: optional(env, 'CAPI_CLEANUP_REGION') ?? login.region,
    endpointInterface,
    caPem: caPem(env) ?? login.caPem,
    occmClusterName,
    csiClusterName,
    ...(machineNetworkName ? { machineNetworkName } : {}),
    deleteVolumes: volumes === 'delete',
    dryRun: dryRun === '1',
    timeoutMs: positive(env, 'CAPI_CLEANUP_TIMEOUT_MINUTES', 20) * 60_000,
    pollIntervalMs: positive(env, 'CAPI_CLEANUP_POLL_SECONDS', 5) * 1000,
  };
}

/** Runs the cleanup; returns the exit code. `out` gets progress lines, `err` the one failure line. */
export async function runCli(env: Env, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const config = settingsOrReport('cleanup-cluster-leftovers', () => readCliConfig(env), err);
  if (!config) return EXIT_BAD_CONFIG;
  const secret = config.auth.type === 'password' ? config.auth.password : config.auth.secret;
  const scrub = (line: string): string => (secret.length >= 4 ? line.split(secret).join('***') : line);
  try {
    await cleanupClusterLeftovers({ ...config, log: (line) => out(scrub(line)) });
    return EXIT_OK;
  } catch (e) {
    const message = e instanceof CleanupError || e instanceof OpenStackApiError ? e.message : `unexpected failure: ${e instanceof Error ? e.message : String(e)}`;
    err(scrub(`cleanup-cluster-leftovers: FAILED for cluster "${config.occmClusterName}": ${message.replace(/\s*\n\s*/g, ' ')}`));
    return EXIT_FAILED;
  }
}

/** Who logs in: a clouds.yaml entry, or an auth URL with an application credential. */
function readLogin(env: Env): Omit<OpenStackCredentials, 'requestTimeoutMs'> {
  const cloud = optional(env, 'CAPI_CLEANUP_CLOUD');
  const authUrl = optional(env, 'CAPI_CLEANUP_AUTH_URL');
  if (cloud && authUrl) throw new CliConfigError('set CAPI_CLEANUP_CLOUD (a clouds.yaml entry) or CAPI_CLEANUP_AUTH_URL with an application credential, not both');
  if (cloud) {
    const file = optional(env, 'CAPI_CLEANUP_CLOUDS_FILE');
    try {
      return credentialsFromCloudsYaml({ cloud, file, env: env as NodeJS.ProcessEnv }).credentials;
    } catch (e) {
      if (e instanceof CloudsFileError) throw new CliConfigError(`CAPI_CLEANUP_CLOUD: ${e.message}`);
      throw e;
    }
  }
  if (!authUrl) {
    throw new CliConfigError(
      'CAPI_CLEANUP_CLOUD is not set (expected a clouds.yaml entry), nor is CAPI_CLEANUP_AUTH_URL (expected the Keystone URL, with CAPI_CLEANUP_APPLICATION_CREDENTIAL_ID and _SECRET)',
    );
  }
  try {
    const u = new URL(authUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
  } catch {
    throw new CliConfigError(`CAPI_CLEANUP_AUTH_URL is not an http(s) URL: '${authUrl}'`);
  }
  const id = required(env, 'CAPI_CLEANUP_APPLICATION_CREDENTIAL_ID', 'the id of an application credential of the cluster\'s project');
  const secret = required(env, 'CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET', 'the secret of that application credential');
  return { authUrl, auth: { type: 'application_credential', id, secret } };
}

function clusterName(env: Env, name: string, mandatory: boolean): string | undefined {
  const v = mandatory ? required(env, name, 'the name OCCM and Cinder CSI mark the cluster\'s resources with') : optional(env, name);
  if (v !== undefined && !NAME.test(v)) throw new CliConfigError(`${name} must be a name of letters, digits, '-', '_' and '.' (got '${v}')`);
  return v;
}

/** The private CA from CAPI_CLEANUP_CA_PEM (PEM text; literal `\n` tolerated) or CAPI_CLEANUP_CA_FILE. */
function caPem(env: Env): string | undefined {
  const text = optional(env, 'CAPI_CLEANUP_CA_PEM');
  const file = optional(env, 'CAPI_CLEANUP_CA_FILE');
  if (text && file) throw new CliConfigError('set CAPI_CLEANUP_CA_PEM or CAPI_CLEANUP_CA_FILE, not both');
  let pem: string | undefined;
  let source = 'CAPI_CLEANUP_CA_PEM';
  if (text) pem = unescapePem(text);
  if (file) {
    source = `CAPI_CLEANUP_CA_FILE (${file})`;
    const read = readBoundedFile(file, 'PEM file', MAX_CA_FILE_BYTES);
    if ('problem' in read) throw new CliConfigError(`CAPI_CLEANUP_CA_FILE cannot be read: ${read.problem}`);
    pem = read.bytes.toString('utf8');
  }
  if (pem === undefined) return undefined;
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new CliConfigError(`${source} holds no PEM certificate`);
  try {
    new X509Certificate(pem);
  } catch {
    throw new CliConfigError(`${source} is not a valid PEM certificate`);
  }
  return pem;
}
