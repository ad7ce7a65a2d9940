/**
 * The Kubernetes upgrade rules of a running workload cluster: one minor per step, never down, patch
 * changes freely within a minor. Synth cannot know what a cluster runs (that lives on the management
 * cluster), so the workload stack checks the same rules at plan (lib/kube/control-plane-upgrade-gate)
 * against the KubeadmControlPlane it reads there; this is the rule set both follow.
 */
import { comparePatch, isVersion, minorOf, nextMinor } from './versions';

export type KubernetesUpgradeStep =
  /** Nothing deployed yet, or the same version. */
  | { readonly kind: 'none' }
  /** Within one minor: control plane and node groups may move together. */
  | { readonly kind: 'patch' }
  /** The next minor: control plane first, node groups once it reports the version on all its machines. */
  | { readonly kind: 'minor' }
  | { readonly kind: 'refused'; readonly message: string };

/**
 * What moving a cluster from `deployed` (its control plane's version; undefined when none is
 * deployed) to `target` is, or why it is refused, naming the path to take.
 */
export function kubernetesUpgradeStep(deployed: string | undefined, target: string): KubernetesUpgradeStep {
  if (!deployed || deployed === target) return { kind: 'none' };
  const from = minorOf(deployed);
  const to = minorOf(target);
  if (!from || !to || !isVersion(deployed) || !isVersion(target)) {
    return { kind: 'refused', message: `expected exact versions like v1.36.3, found "${deployed}" → "${target}"` };
  }
  if (comparePatch(target, deployed) < 0) {
    return {
      kind: 'refused',
      message: `Kubernetes ${deployed} → ${target} is a downgrade, which kubeadm does not support; keep ${deployed} (or a newer version) in kubernetesVersion`,
    };
  }
  if (from === to) return { kind: 'patch' };
  if (nextMinor(from) === to) return { kind: 'minor' };
  return { kind: 'refused', message: `Kubernetes ${deployed} → ${target} skips minors; upgrade one minor at a time: ${minorPath(from, to).map((m) => `${m}.x`).join(', then ')}` };
}

/** The minors after `from` up to `to`: `v1.35`, `v1.37` → `[v1.36, v1.37]`. */
export function minorPath(from: string, to: string): string[] {
  const path: string[] = [];
  for (let m = nextMinor(from); path.length < 100; m = nextMinor(m)) {
    path.push(m);
    if (m === to) break;
  }
  return path;
}
