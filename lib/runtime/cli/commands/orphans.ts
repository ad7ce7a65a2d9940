/** `orphans <env>`: resources of the management stack that exist in the cloud but not in its state. */
import * as path from 'path';
import { loadEnvironmentFile } from '../../../config/load';
import { credentialsFromCloudsYaml } from '../../cleanup/clouds-yaml';
import { OpenStackSession } from '../../openstack-session';
import { deleteOrphans, listCloud } from '../../orphans/cloud-orphans';
import { findOrphans, stateIds } from '../../orphans/find-orphans';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, environmentFile, loadName } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { pullStackState } from '../kubeconfig/stack-outputs';
import { cdktfOutDir } from './kubeconfig';

export const orphansSpec: CommandSpec = {
  name: 'orphans',
  usage: '<env>',
  summary: 'After a deploy was killed mid-apply: list (or --delete) what it created in the cloud but never recorded in the state.',
  details: [
    'A deploy stopped hard (a cancelled CI job, a killed runner, Ctrl-C twice) can create a resource and die before Terraform writes it into the state. The next deploy would then create it a second time, or fail on it ("Router already has a port on subnet …").',
    'This compares the resources of the management stack (named <prefix>-<env>-…, floating IPs described so) in the project of the clouds.yaml entry with `terraform state pull` of <cdktf-out>/stacks/<env>-management, and lists those no state records. With --delete it deletes them; then deploy again.',
    'Run it only while no deploy of the environment is running: a deploy in progress has resources that are not in the state yet. Exit code 3 when orphans are listed and not deleted.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'cdktf-out', value: '<dir>', description: 'Synthesis output directory (default: "output" of cdktf.json, else cdktf.out).' },
    { name: 'delete', description: 'Delete the orphans (servers and volumes are waited for).' },
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['capi-openstack orphans prod', 'capi-openstack orphans prod --delete && cdktf deploy prod-management'],
};

export async function runOrphans(args: ParsedArgs, io: CliIo): Promise<number> {
  const shown = loadName(io.cwd, environmentFile(io.cwd, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, args.positionals[0]));
  const env = loadEnvironmentFile(shown);
  if (env.spec.existingManagementCluster) throw new CliError(`environment ${env.name} uses an existing management cluster: it has no management stack to compare`);
  const stack = env.managementStackName;
  const stackDir = path.join(path.resolve(io.cwd, stringOption(args, 'cdktf-out') ?? cdktfOutDir(io.cwd)), 'stacks', stack);
  io.err(`orphans: reading the state of ${stack} (terraform state pull)…`);
  const known = stateIds(await pullStackState(stackDir, stack, { projectDir: io.cwd, env: io.env }));
  const { credentials } = credentialsFromCloudsYaml({ cloud: env.cloud.name, file: env.cloud.cloudsFile, env: io.env, cwd: io.cwd });
  const session = await OpenStackSession.login({ ...credentials, requestTimeoutMs: 60_000 });
  io.err(`orphans: listing project ${session.projectId} for resources named ${env.resourcePrefix}-*…`);
  const orphans = findOrphans(await listCloud(session), known, env.resourcePrefix);
  if (orphans.length === 0) {
    io.out(`no orphans: every resource named ${env.resourcePrefix}-* is in the state of ${stack} (${known.size} ids)`);
    return 0;
  }
  for (const o of orphans) io.out(`orphan ${o.kind} ${o.id} (${o.label})`);
  if (args.options.delete !== true) {
    io.err(`${orphans.length} orphan(s): the next deploy would create them again. Delete them with: capi-openstack orphans ${env.name} --delete`);
    return 3;
  }
  await deleteOrphans(session, orphans, (line) => io.err(`orphans: ${line}`));
  io.out(`deleted ${orphans.length} orphan(s); deploy again: cdktf deploy ${stack}`);
  return 0;
}
