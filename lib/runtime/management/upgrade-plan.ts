/**
 * Which providers an upgrade moves, from clusterctl's provider inventory (the Provider objects
 * `clusterctl init` writes) and the environment's versions: pure, so that refusals (a missing
 * provider, a downgrade) are decided before anything runs.
 */

/** One Provider object of `clusterctl.cluster.x-k8s.io/v1alpha3`. */
export interface InstalledProvider {
  readonly namespace: string;
  /** clusterctl's provider name: `cluster-api`, `kubeadm`, `openstack`, `helm`. */
  readonly providerName: string;
  /** `CoreProvider`, `BootstrapProvider`, … */
  readonly type: string;
  readonly version: string;
}

export interface ControllerVersions {
  readonly clusterApi: string;
  readonly capo: string;
  readonly caaph: string;
}

export interface UpgradeItem {
  /** `clusterctl upgrade apply` flag. */
  readonly flag: '--core' | '--bootstrap' | '--control-plane' | '--infrastructure' | '--addon';
  /** `<namespace>/<provider>:<version>`. */
  readonly item: string;
  /** e.g. `control-plane-kubeadm v1.12.10 → v1.13.6`. */
  readonly label: string;
  /** Folder of the provider in a clusterctl repository, e.g. `control-plane-kubeadm`. */
  readonly repositoryLabel: string;
  /** The version it moves to. */
  readonly version: string;
}

/** The providers this project installs, with the versions field that sets each. */
const PROVIDERS = [
  { type: 'CoreProvider', providerName: 'cluster-api', flag: '--core', label: 'cluster-api', version: 'clusterApi' },
  { type: 'BootstrapProvider', providerName: 'kubeadm', flag: '--bootstrap', label: 'bootstrap-kubeadm', version: 'clusterApi' },
  { type: 'ControlPlaneProvider', providerName: 'kubeadm', flag: '--control-plane', label: 'control-plane-kubeadm', version: 'clusterApi' },
  { type: 'InfrastructureProvider', providerName: 'openstack', flag: '--infrastructure', label: 'infrastructure-openstack', version: 'capo' },
  { type: 'AddonProvider', providerName: 'helm', flag: '--addon', label: 'addon-helm', version: 'caaph' },
] as const;

export interface UpgradePlan {
  readonly items: readonly UpgradeItem[];
  /** Why the upgrade cannot run (empty when it can). */
  readonly problems: readonly string[];
}

export function planUpgrade(installed: readonly InstalledProvider[], desired: ControllerVersions): UpgradePlan {
  const items: UpgradeItem[] = [];
  const problems: string[] = [];
  for (const p of PROVIDERS) {
    const found = installed.filter((i) => i.type === p.type && i.providerName === p.providerName);
    const want = desired[p.version];
    if (found.length !== 1) {
      problems.push(`${p.label}: expected one installed provider in clusterctl's inventory, found ${found.length} (was clusterctl init complete on this management cluster?)`);
      continue;
    }
    const have = found[0].version;
    const order = compareVersions(have, want);
    if (order === undefined) problems.push(`${p.label}: cannot compare the installed version "${have}" with versions.${p.version} "${want}"`);
    else if (order > 0) problems.push(`${p.label} runs ${have}, newer than versions.${p.version} ${want}: controllers cannot be downgraded (restore a backup into a management cluster of ${want} instead)`);
    else if (order < 0) items.push({ flag: p.flag, item: `${found[0].namespace}/${p.providerName}:${want}`, label: `${p.label} ${have} → ${want}`, repositoryLabel: p.label, version: want });
  }
  return { items, problems };
}

/** -1, 0, 1 for `vX.Y.Z` versions; undefined when either is not one. */
export function compareVersions(a: string, b: string): number | undefined {
  const parse = (v: string) => /^v(\d+)\.(\d+)\.(\d+)$/.exec(v)?.slice(1).map(Number);
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}
