/**
 * In-place upgrade of the management cluster's controllers over its API, from the machine that
 * runs cdktf (no SSH): `clusterctl upgrade plan`, then `clusterctl upgrade apply` for exactly the
 * providers whose version changed, then a check that clusterctl's inventory holds the new
 * versions. A backup comes first (the caller's). clusterctl fetches the new components from the
 * providers' releases, or from a local clusterctl repository (the air-gapped path).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { stringify } from 'yaml';
import { BackupError } from './backup-archive';
import { lastLines, ManagementTarget } from './backup';
import { Clusterctl } from './clusterctl';
import { ControllerVersions, planUpgrade, UpgradeItem } from './upgrade-plan';

export interface UpgradeOptions {
  readonly target: ManagementTarget;
  readonly clusterctl: Clusterctl;
  readonly desired: ControllerVersions;
  /** A local clusterctl repository (`<dir>/<provider label>/<version>/<components file>` with metadata.yaml). @default the providers' releases */
  readonly repository?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (line: string) => void;
}

/** The providers to move; an error naming every refusal. */
export async function upgradeItems(o: Pick<UpgradeOptions, 'target' | 'desired'>): Promise<readonly UpgradeItem[]> {
  const plan = planUpgrade(await o.target.api.providers(), o.desired);
  if (plan.problems.length > 0) throw new BackupError(plan.problems.join('; '));
  return plan.items;
}

export async function applyUpgrade(o: UpgradeOptions, items: readonly UpgradeItem[]): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-upgrade-'));
  try {
    const config = o.repository ? writeRepositoryConfig(work, o.repository) : undefined;
    const common = ['--kubeconfig', o.target.kubeconfigFile, ...(o.target.context ? ['--kubeconfig-context', o.target.context] : []), ...(config ? ['--config', config] : [])];
    const plan = await o.clusterctl.run(['upgrade', 'plan', ...common], o.env, (l) => o.progress(`  plan: ${l}`));
    if (plan.code !== 0) throw new BackupError(`clusterctl upgrade plan failed (exit ${plan.code}): ${lastLines(plan.output)}`);
    const args = ['upgrade', 'apply', ...common, ...items.flatMap((i) => [i.flag, i.item])];
    o.progress(`clusterctl ${args.filter((a) => a !== o.target.kubeconfigFile).join(' ')}`);
    const apply = await o.clusterctl.run(args, o.env, (l) => o.progress(`  apply: ${l}`));
    if (apply.code !== 0) throw new BackupError(`clusterctl upgrade apply failed (exit ${apply.code}): ${lastLines(apply.output)}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const left = planUpgrade(await o.target.api.providers(), o.desired);
  if (left.items.length > 0 || left.problems.length > 0) {
    throw new BackupError(`after clusterctl upgrade apply the inventory still differs: ${[...left.items.map((i) => i.label), ...left.problems].join('; ')}`);
  }
}

/**
 * The whole upgrade: which providers move (refusals first), nothing when none, else `backup`
 * (which must succeed) and the apply. Returns the providers moved.
 */
export async function upgradeControllers(o: UpgradeOptions & { readonly backup: () => Promise<unknown> }): Promise<readonly UpgradeItem[]> {
  const items = await upgradeItems(o);
  if (items.length === 0) return items;
  o.progress(`${items.map((i) => i.label).join(', ')}; a backup first`);
  await o.backup();
  await applyUpgrade(o, items);
  return items;
}

/** clusterctl configuration pointing every provider at the local repository. */
function writeRepositoryConfig(work: string, repository: string): string {
  const dir = path.resolve(repository);
  if (!fs.existsSync(dir)) throw new BackupError(`--repository ${dir} does not exist`);
  const entry = (name: string, label: string, file: string, type: string) => ({ name, url: `file://${dir}/${label}/latest/${file}`, type });
  const config = {
    providers: [
      entry('cluster-api', 'cluster-api', 'core-components.yaml', 'CoreProvider'),
      entry('kubeadm', 'bootstrap-kubeadm', 'bootstrap-components.yaml', 'BootstrapProvider'),
      entry('kubeadm', 'control-plane-kubeadm', 'control-plane-components.yaml', 'ControlPlaneProvider'),
      entry('openstack', 'infrastructure-openstack', 'infrastructure-components.yaml', 'InfrastructureProvider'),
      entry('helm', 'addon-helm', 'addon-components.yaml', 'AddonProvider'),
    ],
  };
  const file = path.join(work, 'clusterctl.yaml');
  fs.writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}
