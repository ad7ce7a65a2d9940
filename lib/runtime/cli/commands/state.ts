/** `state <credentials|migrate|status|unlock|probe> <env> [stack]`: the environment's shared state store. */
import * as fs from 'fs';
import * as path from 'path';
import { EnvironmentConfig } from '../../../config/resolve';
import { StateLocation, stateLocation } from '../../../config/state-backend';
import { credentialsFromCloudsYaml } from '../../cleanup/clouds-yaml';
import { OpenStackSession } from '../../openstack-session';
import { mintStateCredentials } from '../../state/state-credentials';
import { describeLock, parseLock } from '../../state/lock-info';
import { probeConditionalWrites } from '../../state/lock-probe';
import { findS3Credentials, S3Client } from '../../state/s3-client';
import { S3Credentials } from '../../state/sigv4';
import { CommandSpec, ParsedArgs, stringOption, wholeNumberOption } from '../args';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, locateEnvironment } from '../environment-files';
import { environmentStacks, EnvironmentStacks, OperatorStack } from '../environment-stacks';
import { EXIT_BAD_CONFIG } from '../../env-config';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { runTerraformInStack } from '../kubeconfig/stack-outputs';

const ACTIONS = ['credentials', 'migrate', 'status', 'unlock', 'probe'] as const;

/** Exit code of `state probe` when a round had two winners: the store's lock is not exclusive. */
export const EXIT_NOT_ATOMIC = 4;

/** Lifetime of the credentials `state credentials` makes, when --expires-in-hours does not say. */
export const DEFAULT_STATE_CREDENTIAL_HOURS = 12;

export const stateSpec: CommandSpec = {
  name: 'state',
  usage: '<credentials|migrate|status|unlock|probe> <env> [stack]',
  summary: 'Shared state (stateBackend of the environment): S3 credentials, migration of local state, locks.',
  details: [
    'The environment\'s stacks are those the app synthesized for it (<cdktf-out>, `cdktf synth` first): every stack holding its ManagementCluster or a WorkloadCluster of it, with any stack id, each with its state where the environment\'s stateBackend puts it (else where the backend of its cdk.tf.json says: a backend your code gave the stack). An environment the app did not record is read from its file, with the ready-made app\'s stacks <env>-management and <env>-<cluster>. An environment built in code needs no file: give its name.',
    'credentials <env>: prints `export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=…` for a new EC2 credential of the clouds.yaml entry\'s project bound to a new restricted application credential that expires (--expires-in-hours, default 12) and holds only --roles (default member): it authenticates with those roles only, and not after the expiry. Where Keystone refuses credentials to application-credential tokens, the EC2 credential of the user (reused, or created) is printed instead, with a warning: it never expires and carries all the user\'s roles in the project. Use: eval "$(capi-openstack state credentials <env>)".',
    'migrate <env>: creates the bucket when missing, then moves each stack\'s local state file (terraform.<stack>.tfstate in the project directory) into the store: `terraform init -reconfigure` and `terraform state push` in <cdktf-out>/stacks/<stack> (run `cdktf synth` first), which refuses to overwrite a different state. The local file is kept as terraform.<stack>.tfstate.migrated.',
    'status <env>: per stack, whether the store holds its state and who holds its lock.',
    'unlock <env> <stack> [--id <lock id>]: shows the lock a killed run left; with --id (the ID it shows) removes it. Only when the holder is gone: a lock held by a running deploy protects its state.',
    `probe <env> [--rounds N]: checks that the store's conditional writes can lock: N rounds (default 20) of two simultaneous \`If-None-Match: *\` writes of a fresh key under <keyPrefix>/.capi-lock-probe/ (removed after each). Exit ${EXIT_NOT_ATOMIC} when a round had two winners: two runs that start together could both take a lock (Swift's S3 API does this); serialize runs per environment then (docs/concepts.md).`,
    'Credentials for the store come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, else the profile AWS_PROFILE of the shared credentials file, as for Terraform.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
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
    'capi-openstack state status acme --app-dir ../platform',
    'capi-openstack state probe prod',
  ],
};

export async function runState(args: ParsedArgs, io: CliIo): Promise<number> {
  const [action, envArg, stack] = args.positionals;
  if (!(ACTIONS as readonly string[]).includes(action)) throw new CliError(`state: expected one of ${ACTIONS.join(', ')}, found "${action}"`, EXIT_BAD_CONFIG);
  if ((action === 'unlock') !== (stack !== undefined)) throw new CliError(action === 'unlock' ? 'state unlock: name the stack, e.g. state unlock prod prod-management' : `state ${action}: takes no stack argument`, EXIT_BAD_CONFIG);
  const project = CdktfProject.of(args, io);
  const located = locateEnvironment(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, envArg, project);
  const env = located.config;
  if (action === 'credentials') return printCredentials(env, args, io);
  const view = environmentStacks(project, io.cwd, env.name, () => located);
  const name = view.environment;
  // the environment's stateBackend says where each stack's state is (as the constructs put it there), also before the next synth
  const stacks = stacksOf(view).map((s): OperatorStack => {
    const at = stateLocation(env, s.id);
    return at ? { ...s, backend: { kind: 's3', location: at, lockfile: true } } : s;
  });
  const shared = stacks.filter((s) => s.backend.kind === 's3');
  if (shared.length === 0) {
    for (const s of stacks) if (s.backend.kind === 'unusable') throw new CliError(`stack ${s.id}: its ${s.backend.name} backend cannot be read: ${s.backend.why}`);
    throw new CliError(
      view.from === 'naming'
        ? `environment ${name} keeps local state: add stateBackend (endpoint, bucket) to its file to share it`
        : `environment ${name} keeps local state (stacks ${stacks.map((s) => `${s.id}: ${s.backend.kind === 'other' ? s.backend.name : 'local'}`).join(', ')} in ${view.where}): give it stateBackend (endpoint, bucket) to share it`,
    );
  }
  const first = location(shared[0]);
  const found = findS3Credentials(io.env);
  if (!found) throw new CliError(`no S3 credentials for ${first.endpoint}: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials ${name})")`);
  const stores = new StoreClients(found.credentials);
  if (action === 'status') return status(stacks, stores, io);
  if (action === 'unlock') return unlock(view, stacks, stack!, stores, stringOption(args, 'id'), io);
  if (action === 'probe') return probe(first, stores.of(first), wholeNumberOption(args, 'rounds', 1, 500) ?? 20, io);
  return migrate(stacks, stores, project, io);
}

/** Each stack of the environment once (a stack may hold several of its clusters). */
const stacksOf = (view: EnvironmentStacks): OperatorStack[] => view.stacks.filter((s, i) => view.stacks.findIndex((t) => t.id === s.id) === i);

/** The S3 location of a stack on a shared store. */
function location(stack: OperatorStack): StateLocation {
  if (stack.backend.kind !== 's3') throw new Error(`stack ${stack.id} has no S3 backend`);
  return stack.backend.location;
}

/** One client per store (endpoint, bucket, region): an environment's stacks may use more than one. */
class StoreClients {
  private readonly clients = new Map<string, S3Client>();
  constructor(private readonly credentials: S3Credentials) {}
  public of(at: StateLocation): S3Client {
    const key = `${at.endpoint} ${at.bucket} ${at.region}`;
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = new S3Client(at, this.credentials)));
    return client;
  }
}

async function printCredentials(env: EnvironmentConfig, args: ParsedArgs, io: CliIo): Promise<number> {
  const hours = wholeNumberOption(args, 'expires-in-hours', 1, 8760) ?? DEFAULT_STATE_CREDENTIAL_HOURS;
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

async function status(stacks: readonly OperatorStack[], stores: StoreClients, io: CliIo): Promise<number> {
  let locked = 0;
  for (const stack of stacks) {
    if (stack.backend.kind !== 's3') {
      io.out(`${stack.id}: ${stack.backend.kind === 'local' ? 'local state (not in a shared store)' : `backend ${stack.backend.name} (not read here)`}`);
      continue;
    }
    const at = stack.backend.location;
    const s3 = stores.of(at);
    const state = await s3.head(at.key);
    const lockText = stack.backend.lockfile ? await s3.getText(at.lockKey) : undefined;
    const lock = lockText === undefined ? undefined : describeLock(parseLock(lockText));
    if (lock) locked++;
    const lockNote = lock ? `LOCKED by ${lock}` : stack.backend.lockfile ? 'not locked' : 'lock not in the store (the backend does not set use_lockfile)';
    io.out(`${stack.id}: ${state ? `state ${at.bucket}/${at.key} (${state.bytes} bytes, ${state.modified})` : `no state at ${at.bucket}/${at.key}`}; ${lockNote}`);
  }
  return locked > 0 ? 3 : 0;
}

async function unlock(view: EnvironmentStacks, stacks: readonly OperatorStack[], stackId: string, stores: StoreClients, id: string | undefined, io: CliIo): Promise<number> {
  const stack = stacks.find((s) => s.id === stackId);
  if (!stack) throw new CliError(`environment ${view.environment} has no stack ${stackId} in ${view.where} (stacks: ${stacks.map((s) => s.id).join(', ')})`, EXIT_BAD_CONFIG);
  if (stack.backend.kind !== 's3') throw new CliError(`stack ${stackId} keeps its state ${stack.backend.kind === 'local' ? 'locally' : `in a ${stack.backend.name} backend`}: there is no lock in a shared store to remove`, EXIT_BAD_CONFIG);
  const at = stack.backend.location;
  const s3 = stores.of(at);
  const text = await s3.getText(at.lockKey);
  if (text === undefined) {
    io.out(`${stackId}: not locked (no ${at.bucket}/${at.lockKey})`);
    return 0;
  }
  const lock = parseLock(text);
  io.out(`${stackId}: locked by ${describeLock(lock)}`);
  if (id === undefined) {
    io.err(`remove it only if that run is gone: capi-openstack state unlock ${view.environment} ${stackId} --id ${lock.id}`);
    return 3;
  }
  if (id !== lock.id) throw new CliError(`${stackId}: the lock's ID is ${lock.id}, not ${id}: it changed hands; look again before removing anything`);
  await s3.delete(at.lockKey);
  io.out(`${stackId}: lock ${lock.id} removed; if that run was killed mid-apply, check \`capi-openstack orphans ${view.environment}\` before deploying again`);
  return 0;
}

async function probe(at: StateLocation, s3: S3Client, rounds: number, io: CliIo): Promise<number> {
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

async function migrate(stacks: readonly OperatorStack[], stores: StoreClients, project: CdktfProject, io: CliIo): Promise<number> {
  const shared = stacks.filter((s) => s.backend.kind === 's3');
  const buckets = new Map(shared.map((s) => [`${location(s).endpoint} ${location(s).bucket}`, location(s)]));
  for (const at of buckets.values()) {
    const s3 = stores.of(at);
    if (await s3.bucketExists()) io.err(`state: bucket ${at.bucket} exists at ${at.endpoint}`);
    else {
      await s3.createBucket();
      io.out(`created bucket ${at.bucket} at ${at.endpoint}`);
    }
  }
  let moved = 0;
  for (const stack of shared) {
    const at = location(stack);
    const local = path.join(project.dir, `terraform.${stack.id}.tfstate`);
    if (!fs.existsSync(local)) {
      io.out(`${stack.id}: no local state (${path.basename(local)}), nothing to move`);
      continue;
    }
    checkSynthesized(stack, at);
    const options = { projectDir: project.dir, env: io.env, timeoutMs: 300_000 };
    io.err(`state: ${stack.id}: terraform init -reconfigure (backend s3, ${at.bucket}/${at.key})…`);
    await runTerraformInStack(stack.dir, stack.id, ['init', '-input=false', '-reconfigure', '-no-color'], options);
    await runTerraformInStack(stack.dir, stack.id, ['state', 'push', '-no-color', local], options);
    fs.renameSync(local, `${local}.migrated`);
    if (fs.existsSync(`${local}.backup`)) fs.renameSync(`${local}.backup`, `${local}.backup.migrated`);
    io.out(`${stack.id}: state moved to ${at.bucket}/${at.key} (local copy kept as ${path.basename(local)}.migrated)`);
    moved++;
  }
  io.out(`${moved} stack state(s) moved; \`cdktf plan\` of each stack should now show no changes`);
  return 0;
}

/** The stack must be synthesized with this store as its backend, or the push would go elsewhere. */
function checkSynthesized(operatorStack: OperatorStack, at: StateLocation): void {
  const stack = operatorStack.id;
  const file = path.join(operatorStack.dir, 'cdk.tf.json');
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
