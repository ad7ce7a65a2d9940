/** `orphans <env>`: resources with the environment's exact names that exist in the cloud but in none of its stacks' states. */
import * as fs from 'fs';
import * as path from 'path';
import { EnvironmentConfig } from '../../../config/resolve';
import { ambiguity, namedEnvironment, ownedNames } from '../../../config/owned-names';
import { credentialsFromCloudsYaml } from '../../cleanup/clouds-yaml';
import { OpenStackSession } from '../../openstack-session';
import { deleteOrphans, listCloud } from '../../orphans/cloud-orphans';
import { findOrphans, stateIds } from '../../orphans/find-orphans';
import { RuleShape, plannedRules } from '../../orphans/planned-rules';
import { listSettled } from '../../orphans/settled-listing';
import { CommandSpec, ParsedArgs, stringOption, wholeNumberOption } from '../args';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, locateEnvironment } from '../environment-files';
import { environmentStacks } from '../environment-stacks';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { pullStackState } from '../kubeconfig/stack-outputs';

/** Neutron finished a killed deploy's router interface about 6 s after the kill (interrupted-deploy e2e). */
const DEFAULT_SETTLE_SECONDS = 10;
const SETTLE_TIMEOUT_MS = 300_000;

export const orphansSpec: CommandSpec = {
  name: 'orphans',
  usage: '<env>',
  summary: 'After a deploy was killed mid-apply: list (or --delete) what it created in the cloud but never recorded in a state.',
  details: [
    'A deploy stopped hard (a cancelled CI job, a killed runner, Ctrl-C twice) can create a resource and die before Terraform writes it into the state. The next deploy would then create it a second time, or fail on it ("Router already has a port on subnet …").',
    'This looks in the project of the clouds.yaml entry (and, with management.cloud, in the management project too) for the exact names the environment\'s stacks give their resources (<prefix>-<env>-mgmt, …-mgmt-boot, …-node-access, the API floating IPs of its clusters; never "everything starting with <prefix>-<env>-", which would take environment <env>-eu\'s too) and lists those that no state of its stacks (`terraform state pull` of the stacks holding its ManagementCluster and WorkloadClusters in what the app synthesized, any stack ids; <cdktf-out>/stacks/<env>-management and every <env>-<cluster> when the app did not record it) records. With --delete it deletes them; then deploy again.',
    'A name that another prefix/environment split also gives (prefix a + environment b-c and prefix a-b + environment c both give a-b-c-mgmt) is deleted only when it hangs on an id of the state (a server on its port, a port or subnet on its network, an interface on its router, a volume on its server); otherwise it is listed as kept with the reason, exit code 3. A workload stack whose state cannot be read (never deployed from here) has its names kept too.',
    'Run it only while no deploy of the environment is running: a deploy in progress has resources that are not in the state yet. A killed deploy\'s last requests can still be in progress in the cloud for some seconds, so each project is listed until two listings --settle-seconds apart agree (for at most 5 minutes). Exit code 3 when orphans are listed and not deleted, or candidates are kept.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
    { name: 'delete', description: 'Delete the orphans (servers and volumes are waited for).' },
    { name: 'settle-seconds', value: '<n>', description: `Seconds between two listings that must agree before the project is judged; 0 lists once (default: ${DEFAULT_SETTLE_SECONDS}).` },
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['capi-openstack orphans prod', 'capi-openstack orphans prod --delete && cdktf deploy prod-management'],
};

export async function runOrphans(args: ParsedArgs, io: CliIo): Promise<number> {
  const project = CdktfProject.of(args, io);
  const located = locateEnvironment(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, args.positionals[0], project);
  const env = located.config;
  const settleSeconds = wholeNumberOption(args, 'settle-seconds', 0, 600) ?? DEFAULT_SETTLE_SECONDS;
  const named = namedEnvironment(env);
  const options = { projectDir: project.dir, env: io.env };
  const known = new Set<string>();
  const unreadable = new Map<string, string>();
  const planned: RuleShape[] = [];
  // the stacks the app recorded for it (any ids), else <env>-management and <env>-<cluster>
  const view = environmentStacks(project, io.cwd, env.name, () => located);
  const stacks: [owner: string, stack: string, dir: string][] = view.stacks.map((s) => [s.role === 'management' ? 'management' : s.cluster!, s.id, s.dir]);
  for (const [owner, stack, dir] of stacks) {
    io.err(`orphans: reading the state of ${stack} (terraform state pull)…`);
    try {
      const state = await pullStackState(dir, stack, options);
      for (const id of stateIds(state)) known.add(id);
      planned.push(...plannedRules(JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8')), state));
    } catch (e) {
      // the management state is the point of the command; a workload stack's may be elsewhere (never deployed from here)
      if (owner === 'management' || !(e instanceof CliError)) throw e;
      unreadable.set(owner, `the state of stack ${stack} could not be read (${e.message}), so its resources are not judged`);
    }
  }
  // With management.cloud the management stack's resources live in a project of their own: each
  // project the environment uses is listed with its own entry's login.
  const clouds = [env.cloud, ...(env.managementCloud.name !== env.cloud.name ? [env.managementCloud] : [])];
  const found: { session: OpenStackSession; orphans: ReturnType<typeof findOrphans>['orphans'] }[] = [];
  const kept: ReturnType<typeof findOrphans>['kept'] = [];
  for (const cloud of clouds) {
    const { credentials } = credentialsFromCloudsYaml({ cloud: cloud.name, file: cloud.cloudsFile, env: io.env, cwd: io.cwd });
    const session = await OpenStackSession.login({ ...credentials, requestTimeoutMs: 60_000 });
    io.err(`orphans: listing project ${session.projectId} (clouds.yaml entry ${cloud.name}) for the exact names of environment ${env.name} (${stacks.map(([, id]) => id).join(', ')})…`);
    const listing = await listSettled(() => listCloud(session), { settleMs: settleSeconds * 1000, timeoutMs: SETTLE_TIMEOUT_MS, log: (line) => io.err(`orphans: ${line}`) });
    const result = findOrphans(listing, { owned: ownedNames(named), known, ambiguity: (o) => ambiguity(named, o), unreadable, plannedRules: planned });
    found.push({ session, orphans: result.orphans });
    kept.push(...result.kept);
  }
  const orphans = found.flatMap((f) => f.orphans);
  for (const k of kept) io.out(`kept ${k.kind} ${k.id} (${k.label}): ${k.reason}`);
  if (orphans.length === 0) {
    io.out(`no orphans: every resource with a name of environment ${env.name} is in a state of its stacks (${known.size} ids)${kept.length > 0 ? `, except the ${kept.length} kept above` : ''}`);
    return kept.length > 0 ? 3 : 0;
  }
  for (const o of orphans) io.out(`orphan ${o.kind} ${o.id} (${o.label})`);
  if (args.options.delete !== true) {
    io.err(`${orphans.length} orphan(s): the next deploy would create them again. Delete them with: capi-openstack orphans ${env.name} --delete`);
    return 3;
  }
  for (const f of found) await deleteOrphans(f.session, f.orphans, (line) => io.err(`orphans: ${line}`));
  io.out(`deleted ${orphans.length} orphan(s); deploy again: cdktf deploy ${readyMadeIds(env, stacks.map(([, id]) => id)) ? `'${env.name}-*'` : stacks.map(([, id]) => id).join(' ')}${kept.length > 0 ? ` (${kept.length} kept: see above)` : ''}`);
  return kept.length > 0 ? 3 : 0;
}

/** The stacks are the ready-made app's (`<env>-management`, `<env>-<cluster>`): `cdktf deploy '<env>-*'` deploys them. */
function readyMadeIds(env: EnvironmentConfig, ids: readonly string[]): boolean {
  const names = new Set([env.managementStackName, ...env.clusters.map((c) => c.stackName)]);
  return ids.every((id) => names.has(id));
}
