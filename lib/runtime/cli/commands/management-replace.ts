/**
 * `management replace <env>`: a new management VM from a plan the operator sees. The plan is
 * saved first (`-replace` of the server and its boot volume), printed, and refused when it changes
 * anything beyond them and the records replaced with them; then the backup; then exactly that
 * saved plan is applied (Terraform refuses it if the state moved meanwhile); then the restore.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfig } from '../../../config/resolve';
import { BackupContent, BackupError } from '../../management/backup-archive';
import { changesBeyondReplacement, replacementTargets, ReplacementTargets } from '../../management/replacement';
import { CdktfProject } from '../cdktf-project';
import { displayPath } from '../environment-files';
import { EnvironmentStacks, managementStack } from '../environment-stacks';
import { CliIo } from '../io';
import { runTerraformInStack } from '../kubeconfig/stack-outputs';

export interface Replacement {
  readonly stack: string;
  readonly stackDir: string;
  readonly targets: ReplacementTargets;
  /** The cdktf project (scripts/toolchain/env.sh). */
  readonly projectDir: string;
}

/** What replace needs from the project, checked before anything runs: the stack holding the environment's ManagementCluster, any id. */
export function replacementOf(project: CdktfProject, env: EnvironmentConfig, stacks: () => EnvironmentStacks): Replacement {
  if (env.spec.existingManagementCluster) throw new BackupError(`environment ${env.name} uses an existing management cluster: there is no management VM to replace`);
  const stack = managementStack(stacks(), project);
  return { stack: stack.id, stackDir: stack.dir, targets: replacementTargets(stack.dir, stack.id), projectDir: project.dir };
}

/** Plan, check, print; backup; apply of the saved plan; restore of the backup into the new VM. */
export async function replaceVm(r: Replacement, io: CliIo, env: EnvironmentConfig, obtainBackup: () => Promise<BackupContent>, restore: (content: BackupContent) => Promise<void>): Promise<number> {
  const { stack, stackDir, targets } = r;
  const run = (args: string[], timeoutMs = 10 * 60_000) => runTerraformInStack(stackDir, stack, args, { projectDir: r.projectDir, env: io.env, timeoutMs });
  // the saved plan holds the prior state (keys, credentials): a private directory, removed after
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-replace-'));
  try {
    const planFile = path.join(work, 'replace.tfplan');
    const replace = targets.replace.map((a) => `-replace=${a}`);
    io.err(`management replace: terraform plan ${replace.join(' ')} in ${displayPath(io.cwd, stackDir)}…`);
    await run(['plan', '-input=false', '-no-color', `-out=${planFile}`, ...replace], 30 * 60_000);
    io.out((await run(['show', '-no-color', planFile])).trimEnd());
    const beyond = changesBeyondReplacement(await run(['show', '-json', planFile]), targets.allowed);
    if (beyond.length > 0) {
      throw new BackupError(
        `refused: the plan above changes more than the management VM, its boot volume and the records replaced with them: ${beyond.join(', ')}. Deploy or undo those changes first (cdktf plan ${stack} shows them), then replace; nothing was changed`,
      );
    }
    // refused unless this backup succeeds (or one is given): the old VM holds the only copy of the clusters' state
    const content = await obtainBackup();
    io.err(`management replace: terraform apply of that saved plan (as long as a first deploy: the readiness gate waits for the new management cluster)…`);
    const t0 = Date.now();
    await run(['apply', '-input=false', '-no-color', planFile], 90 * 60_000);
    io.err(`management replace: new VM ready after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    if (content.header.clusters.length > 0) await restore(content);
    io.out(`replaced the management VM of ${env.name}${content.header.clusters.length > 0 ? ` and restored ${content.header.clusters.length} clusters into it` : ' (it held no clusters)'}`);
    return 0;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
