/** `state <credentials|migrate|status|unlock|probe> <env> [stack]`: the environment's shared state store. */
import * as fs from 'fs';
import * as path from 'path';
import { loadEnvironmentFile } from '../../../config/load';
import { EnvironmentConfig } from '../../../config/resolve';
import { environmentStackNames, StateLocation, stateLocation } from '../../../config/state-backend';
import { credentialsFromCloudsYaml } from '../../cleanup/clouds-yaml';
import { OpenStackSession } from '../../openstack-session';
import { mintStateCredentials } from '../../state/state-credentials';
import { describeLock, parseLock } from '../../state/lock-info';
import { probeConditionalWrites } from '../../state/lock-probe';
import { findS3Credentials, S3Client } from '../../state/s3-client';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, environmentFile, loadName } from '../environment-files';
import { EXIT_BAD_CONFIG } from '../../env-config';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { runTerraformInStack } from '../kubeconfig/stack-outputs';
import { cdktfOutDir } from './kubeconfig';

const ACTIONS = ['credentials', 'migrate', 'status', 'unlock', 'probe'] as const;

/** Exit code of `state probe` when a round had two winners: the store's lock is not exclusive. */
export const EXIT_NOT_ATOMIC = 4;

/** Lifetime of the credentials `state credentials` makes, when --expires-in-hours does not say. */
export const DEFAULT_STATE_CREDENTIAL_HOURS = 12;

export const stateSpec: CommandSpec = {
  name: 'state',
  usage: '<credentials|migrate|status|unlock|probe> <env> [stack]',
  summary: 'Shared state (stateBackend of the environment file): S3 credentials, migration of local state, locks.',
  details: [
    'credentials <env>: prints `export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=…` for a new EC2 credential of the clouds.yaml entry\'s project bound to a new restricted application credential that expires (--expires-in-hours, default 12) and holds only --roles (default member): it authenticates with those roles only, and not after the expiry. Where Keystone refuses credentials to application-credential tokens, the EC2 credential of the user (reused, or created) is printed instead, with a warning: it never expires and carries all the user\'s roles in the project. Use: eval "$(capi-openstack state credentials <env>)".',
    'migrate <env>: creates the bucket when missing, then moves each stack\'s local state file (terraform.<stack>.tfstate in this directory) into the store: `terraform init -reconfigure` and `terraform state push` in <cdktf-out>/stacks/<stack> (run `cdktf synth` first), which refuses to overwrite a different state. The local file is kept as terraform.<stack>.tfstate.migrated.',
    'status <env>: per stack, whether the store holds its state and who holds its lock.',
    'unlock <env> <stack> [--id <lock id>]: shows the lock a killed run left; with --id (the ID it shows) removes it. Only when the holder is gone: a lock held by a running deploy protects its state.',
    `probe <env> [--rounds N]: checks that the store's conditional writes can lock: N rounds (default 20) of two simultaneous \`If-None-Match: *\` writes of a fresh key under <keyPrefix>/.capi-lock-probe/ (removed after each). Exit ${EXIT_NOT_ATOMIC} when a round had two winners: two runs that start together could both take a lock (Swift's S3 API does this); serialize runs per environment then (docs/concepts.md).`,
    'Credentials for the store come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, else the profile AWS_PROFILE of the shared credentials file, as for Terraform.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'cdktf-out', value: '<dir>', description: 'Synthesis output directory (default: "output" of cdktf.json, else cdktf.out).' },
    { name: 'id', value: '<lock id>', description: 'unlock: the ID of the lock to remove.' },
    { name: 'expires-in-hours', value: '<n>', description: `credentials: lifetime of the credential (1 to 8760, default ${DEFAULT_STATE_CREDENTIAL_HOURS}).` },
    { name: 'roles', value: '<role,…>', description: 'credentials: roles it holds, comma-separated (default member: what Swift and Ceph RGW accept for a project\'s buckets).' },
    { name: 'rounds', value: '<n>', description: 'probe: rounds of simultaneous writes (1 to 500, default 20).' },
  ],
  minPositionals: 2,
  maxPositionals: 3,
  examples: [
    'eval "$(capi-openstack state credentials prod)"',
    'cdktf synth && capi-openstack state migrate prod',
    'capi-openstack state status prod',
    'capi-openstack state unlock prod prod-management --id 6f1c…',
    'capi-openstack state probe prod',
  ],
};

export async function runState(args: ParsedArgs, io: CliIo): Promise<number> {
  const [action, envName, stack] = args.positionals;
  if (!(ACTIONS as readonly string[]).includes(action)) throw new CliError(`state: expected one of ${ACTIONS.join(', ')}, found "${action}"`, EXIT_BAD_CONFIG);
  if ((action === 'unlock') !== (stack !== undefined)) throw new CliError(action === 'unlock' ? 'state unlock: name the stack, e.g. state unlock prod prod-management' : `state ${action}: takes no stack argument`, EXIT_BAD_CONFIG);
  const env = loadEnvironmentFile(loadName(io.cwd, environmentFile(io.cwd, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, envName)));
  if (action === 'credentials') return printCredentials(env, args, io);
  const first = stateLocation(env, env.managementStackName);
  if (!first) throw new CliError(`environment ${env.name} keeps local state: add stateBackend (endpoint, bucket) to its file to share it`);
  const found = findS3Credentials(io.env);
  if (!found) throw new CliError(`no S3 credentials for ${first.endpoint}: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials ${env.name})")`);
  const s3 = new S3Client(first, found.credentials);
  if (action === 'status') return status(env, s3, io);
  if (action === 'unlock') return unlock(env, stack!, s3, stringOption(args, 'id'), io);
  if (action === 'probe') return probe(first, s3, stringOption(args, 'rounds'), io);
  return migrate(env, s3, path.resolve(io.cwd, stringOption(args, 'cdktf-out') ?? cdktfOutDir(io.cwd)), io);
}

async function printCredentials(env: EnvironmentConfig, args: ParsedArgs, io: CliIo): Promise<number> {
  const hours = Number(stringOption(args, 'expires-in-hours') ?? DEFAULT_STATE_CREDENTIAL_HOURS);
  if (!Number.isInteger(hours) || hours < 1 || hours > 8760) throw new CliError(`--expires-in-hours: expected a whole number from 1 to 8760, found "${String(stringOption(args, 'expires-in-hours')).slice(0, 20)}"`, EXIT_BAD_CONFIG);
  const roles = (stringOption(args, 'roles') ?? 'member').split(',').map((r) => r.trim());
  if (roles.some((r) => !/^[A-Za-z0-9_.-]{1,64}$/.test(r))) throw new CliError(`--roles: expected comma-separated role names, found "${String(stringOption(args, 'roles')).slice(0, 80)}"`, EXIT_BAD_CONFIG);
  // the state bucket belongs with the management VM: in management.cloud's project when it has one
  const cloud = env.managementCloud;
  const { credentials } = credentialsFromCloudsYaml({ cloud: cloud.name, file: cloud.cloudsFile, env: io.env, cwd: io.cwd });
  const login = { ...credentials, requestTimeoutMs: 60_000 };
  const session = await OpenStackSession.login(login);
  const now = new Date();
  const name = `capi-openstack-state-${env.name}-${now.toISOString().replace(/[-:]|\.\d+Z$/g, '').replace('T', '-')}`;
  const minted = await mintStateCredentials(session, login, { name, expiresAt: new Date(now.getTime() + hours * 3_600_000), roles });
  const key = minted.credentials.accessKeyId;
  if (minted.kind === 'bound') {
    io.err(`state: EC2 credential ${key} of project ${session.projectId} (cloud ${cloud.name}), bound to application credential ${minted.applicationCredentialId} (roles ${minted.roles.join(', ')}; expires ${minted.expiresAt}): it stops working then, or at once with \`openstack application credential delete ${minted.applicationCredentialId}\``);
  } else {
    io.err(`state: WARNING: ${minted.reason}. ${minted.created ? 'Created' : 'Reusing'} EC2 credential ${key} of project ${session.projectId} (cloud ${cloud.name}): it never expires and carries every role of the user in that project. Make it with a user that holds only the object store's role there (docs/security.md) and delete it when done: openstack ec2 credentials delete ${key}`);
  }
  io.out(`export AWS_ACCESS_KEY_ID=${key}`);
  io.out(`export AWS_SECRET_ACCESS_KEY=${minted.credentials.secretAccessKey}`);
  return 0;
}

async function status(env: EnvironmentConfig, s3: S3Client, io: CliIo): Promise<number> {
  let locked = 0;
  for (const stack of environmentStackNames(env)) {
    const at = stateLocation(env, stack)!;
    const state = await s3.head(at.key);
    const lockText = await s3.getText(at.lockKey);
    const lock = lockText === undefined ? undefined : describeLock(parseLock(lockText));
    if (lock) locked++;
    io.out(`${stack}: ${state ? `state ${at.bucket}/${at.key} (${state.bytes} bytes, ${state.modified})` : `no state at ${at.bucket}/${at.key}`}; ${lock ? `LOCKED by ${lock}` : 'not locked'}`);
  }
  return locked > 0 ? 3 : 0;
}

async function unlock(env: EnvironmentConfig, stack: string, s3: S3Client, id: string | undefined, io: CliIo): Promise<number> {
  if (!environmentStackNames(env).includes(stack)) throw new CliError(`environment ${env.name} has no stack ${stack} (stacks: ${environmentStackNames(env).join(', ')})`, EXIT_BAD_CONFIG);
  const at = stateLocation(env, stack)!;
  const text = await s3.getText(at.lockKey);
  if (text === undefined) {
    io.out(`${stack}: not locked (no ${at.bucket}/${at.lockKey})`);
    return 0;
  }
  const lock = parseLock(text);
  io.out(`${stack}: locked by ${describeLock(lock)}`);
  if (id === undefined) {
    io.err(`remove it only if that run is gone: capi-openstack state unlock ${env.name} ${stack} --id ${lock.id}`);
    return 3;
  }
  if (id !== lock.id) throw new CliError(`${stack}: the lock's ID is ${lock.id}, not ${id}: it changed hands; look again before removing anything`);
  await s3.delete(at.lockKey);
  io.out(`${stack}: lock ${lock.id} removed; if that run was killed mid-apply, check \`capi-openstack orphans ${env.name}\` before deploying again`);
  return 0;
}

async function probe(at: StateLocation, s3: S3Client, roundsOption: string | undefined, io: CliIo): Promise<number> {
  const rounds = Number(roundsOption ?? 20);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 500) throw new CliError(`--rounds: expected a whole number from 1 to 500, found "${String(roundsOption).slice(0, 20)}"`, EXIT_BAD_CONFIG);
  if (!(await s3.bucketExists())) throw new CliError(`bucket ${at.bucket} does not exist at ${at.endpoint}: create it with \`capi-openstack state migrate\` first`);
  const prefix = at.key.slice(0, at.key.lastIndexOf('/'));
  const r = await probeConditionalWrites(s3, prefix, 2, rounds);
  io.out(`conditional writes of ${at.endpoint} (${at.bucket}/${prefix}): ${r.rounds} rounds of ${r.writers} simultaneous writers: one winner in ${r.single}, more than one in ${r.multiple}, none in ${r.none}`);
  if (r.multiple > 0) {
    io.err(`NOT EXCLUSIVE: two runs that take a lock at the same moment can both get it; serialize deploys per environment (CI concurrency group / resource_group, docs/concepts.md)`);
    return EXIT_NOT_ATOMIC;
  }
  if (r.none > 0) throw new CliError(`the store refused every write in ${r.none} round(s): it cannot hold Terraform's lock file`);
  io.out(`no round had two winners (evidence, not proof: rerun with more --rounds)`);
  return 0;
}

async function migrate(env: EnvironmentConfig, s3: S3Client, outDir: string, io: CliIo): Promise<number> {
  const first = stateLocation(env, env.managementStackName)!;
  if (await s3.bucketExists()) io.err(`state: bucket ${first.bucket} exists at ${first.endpoint}`);
  else {
    await s3.createBucket();
    io.out(`created bucket ${first.bucket} at ${first.endpoint}`);
  }
  let moved = 0;
  for (const stack of environmentStackNames(env)) {
    const at = stateLocation(env, stack)!;
    const local = path.join(io.cwd, `terraform.${stack}.tfstate`);
    if (!fs.existsSync(local)) {
      io.out(`${stack}: no local state (${path.basename(local)}), nothing to move`);
      continue;
    }
    checkSynthesized(outDir, stack, at);
    const options = { projectDir: io.cwd, env: io.env, timeoutMs: 300_000 };
    const stackDir = path.join(outDir, 'stacks', stack);
    io.err(`state: ${stack}: terraform init -reconfigure (backend s3, ${at.bucket}/${at.key})…`);
    await runTerraformInStack(stackDir, stack, ['init', '-input=false', '-reconfigure', '-no-color'], options);
    await runTerraformInStack(stackDir, stack, ['state', 'push', '-no-color', local], options);
    fs.renameSync(local, `${local}.migrated`);
    if (fs.existsSync(`${local}.backup`)) fs.renameSync(`${local}.backup`, `${local}.backup.migrated`);
    io.out(`${stack}: state moved to ${at.bucket}/${at.key} (local copy kept as ${path.basename(local)}.migrated)`);
    moved++;
  }
  io.out(`${moved} stack state(s) moved; \`cdktf plan\` of each stack should now show no changes`);
  return 0;
}

/** The stack must be synthesized with this store as its backend, or the push would go elsewhere. */
function checkSynthesized(outDir: string, stack: string, at: StateLocation): void {
  const file = path.join(outDir, 'stacks', stack, 'cdk.tf.json');
  let backend: { s3?: { bucket?: string; key?: string } } | undefined;
  try {
    backend = JSON.parse(fs.readFileSync(file, 'utf8')).terraform?.backend;
  } catch {
    throw new CliError(`${stack}: no synthesized stack at ${file}: run \`cdktf synth\` first`);
  }
  if (backend?.s3?.bucket !== at.bucket || backend.s3.key !== at.key) {
    throw new CliError(`${stack}: ${file} was synthesized without this stateBackend (backend ${Object.keys(backend ?? { local: 1 })[0]}): run \`cdktf synth\` again`);
  }
}
