/**
 * In-place upgrade of the management cluster's controllers over its API, from the machine that
 * runs cdktf (no SSH): the new components prepared first (with pinned manifests: verified by their
 * SHA-256, see component-repository), a backup (the caller's), `clusterctl upgrade plan`, then
 * `clusterctl upgrade apply` for exactly the providers whose version changed, then a check that
 * clusterctl's inventory holds the new versions.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BackupError } from './backup-archive';
import { lastLines, ManagementTarget } from './backup';
import { Clusterctl } from './clusterctl';
import { ComponentSource, prepareComponents } from './component-repository';
import { ControllerVersions, planUpgrade, UpgradeItem } from './upgrade-plan';

export interface UpgradeOptions {
  readonly target: ManagementTarget;
  readonly clusterctl: Clusterctl;
  readonly desired: ControllerVersions;
  /** Where the components come from. @default the providers' releases, unverified */
  readonly components?: ComponentSource;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (line: string) => void;
}

/** The providers to move; an error naming every refusal. */
export async function upgradeItems(o: Pick<UpgradeOptions, 'target' | 'desired'>): Promise<readonly UpgradeItem[]> {
  const plan = planUpgrade(await o.target.api.providers(), o.desired);
  if (plan.problems.length > 0) throw new BackupError(plan.problems.join('; '));
  return plan.items;
}

/** `clusterctl upgrade plan` and `apply` with the configuration `config` (undefined: clusterctl's defaults), then the inventory check. */
export async function applyUpgrade(o: UpgradeOptions, items: readonly UpgradeItem[], config: string | undefined): Promise<void> {
  const common = ['--kubeconfig', o.target.kubeconfigFile, ...(o.target.context ? ['--kubeconfig-context', o.target.context] : []), ...(config ? ['--config', config] : [])];
  const plan = await o.clusterctl.run(['upgrade', 'plan', ...common], o.env, (l) => o.progress(`  plan: ${l}`));
  if (plan.code !== 0) throw new BackupError(`clusterctl upgrade plan failed (exit ${plan.code}): ${lastLines(plan.output)}`);
  const args = ['upgrade', 'apply', ...common, ...items.flatMap((i) => [i.flag, i.item])];
  o.progress(`clusterctl ${args.filter((a) => a !== o.target.kubeconfigFile).join(' ')}`);
  const apply = await o.clusterctl.run(args, o.env, (l) => o.progress(`  apply: ${l}`));
  if (apply.code !== 0) throw new BackupError(`clusterctl upgrade apply failed (exit ${apply.code}): ${lastLines(apply.output)}`);
  const left = planUpgrade(await o.target.api.providers(), o.desired);
  if (left.items.length > 0 || left.problems.length > 0) {
    throw new BackupError(`after clusterctl upgrade apply the inventory still differs: ${[...left.items.map((i) => i.label), ...left.problems].join('; ')}`);
  }
}

/**
 * The whole upgrade: which providers move (refusals first), nothing when none, else the components
 * (a version or file the pins refuse stops here), `backup` (which must succeed) and the apply.
 * Returns the providers moved.
 */
export async function upgradeControllers(o: UpgradeOptions & { readonly backup: () => Promise<unknown> }): Promise<readonly UpgradeItem[]> {
  const items = await upgradeItems(o);
  if (items.length === 0) return items;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-upgrade-'));
  try {
    const config = await prepareComponents(o.components ?? {}, items, work, o.progress);
    o.progress(`${items.map((i) => i.label).join(', ')}; a backup first`);
    await o.backup();
    await applyUpgrade(o, items, config);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return items;
}
