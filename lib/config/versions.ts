/**
 * Pinned component versions and the compatibility matrix checked at synth time. The versions come
 * from one table, `component-versions.json`, which the local controller build and the docs read too;
 * bump them there (and in lib/config/downloads.ts for checksummed binaries).
 */
import table from './component-versions.json';

/** Default controller versions installed on the management cluster. */
export const DEFAULT_CONTROLLER_VERSIONS = {
  clusterApi: table.controllers.clusterApi.version,
  capo: table.controllers.capo.version,
  caaph: table.controllers.caaph.version,
} as const;

/** openstack-resource-controller (ORC) release CAPO needs; `clusterctl init` does not install it. */
export const DEFAULT_ORC_VERSION: string = table.controllers.orc.version;

/** Kubernetes version a workload cluster gets when its entry names none. */
export const DEFAULT_KUBERNETES_VERSION: string = table.kubernetes.default;

type MinorTable = Readonly<Record<string, { readonly testedPatch: string; readonly endOfLife: string }>>;
const MINORS: MinorTable = table.kubernetes.minors;

/**
 * Kubernetes patch releases that `.x` versions resolve to (the patch the project tests against).
 * Source: published k8s.io/api v0.<minor>.<patch> tags on the Go module proxy.
 */
export const KUBERNETES_TESTED_PATCHES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MINORS).map(([minor, m]) => [minor, m.testedPatch]),
);

/** End-of-life date (YYYY-MM-DD) of each Kubernetes minor, from the Kubernetes release calendar. */
export const KUBERNETES_END_OF_LIFE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MINORS).map(([minor, m]) => [minor, m.endOfLife]),
);

/**
 * A warning when `version`'s minor is past its end of life on `today` (no more security fixes),
 * naming the date; undefined otherwise or when the date is unknown.
 */
export function endOfLifeWarning(version: string, today: Date = new Date()): string | undefined {
  const minor = minorOf(version);
  const eol = minor ? KUBERNETES_END_OF_LIFE[minor] : undefined;
  if (!minor || !eol || today.toISOString().slice(0, 10) <= eol) return undefined;
  const newest = Object.keys(KUBERNETES_END_OF_LIFE).sort(compareMinor).at(-1);
  return `Kubernetes ${minor} reached its end of life on ${eol} and gets no security fixes; move to ${newest}.x`;
}

export interface ClusterApiRelease {
  /** Kubernetes minors the management cluster may run, inclusive. */
  readonly managementKubernetes: readonly [string, string];
  /** Kubernetes minors workload clusters may run, inclusive. */
  readonly workloadKubernetes: readonly [string, string];
  /** CAPO minors built against this Cluster API contract. */
  readonly capoMinors: readonly string[];
  /** Helm add-on provider minors built against this Cluster API release. */
  readonly caaphMinors: readonly string[];
}

/**
 * Cluster API minor → what it supports. Kubernetes ranges are from the Cluster API release notes
 * ("Kubernetes version support"); provider minors are the combinations this project tests.
 */
export const CLUSTER_API_RELEASES: Readonly<Record<string, ClusterApiRelease>> = {
  'v1.12': {
    managementKubernetes: ['v1.31', 'v1.35'],
    workloadKubernetes: ['v1.29', 'v1.35'],
    capoMinors: ['v0.14'],
    caaphMinors: ['v0.6'],
  },
  // the controller-upgrade e2e moves a running cluster's core and kubeadm from v1.12 to v1.13
  // with CAPO v0.14 and CAAPH v0.6 (test/e2e/management-upgrade.e2e.test.ts)
  'v1.13': {
    managementKubernetes: ['v1.32', 'v1.36'],
    workloadKubernetes: ['v1.30', 'v1.36'],
    capoMinors: ['v0.14'],
    caaphMinors: ['v0.6'],
  },
};

/** One version number, canonical: no leading zeros (v1.33.05), at most 6 digits (a 20-digit patch). */
export const VERSION_NUMBER = '(0|[1-9]\\d{0,5})';
const SEMVER = new RegExp(`^v${VERSION_NUMBER}\\.${VERSION_NUMBER}\\.(${VERSION_NUMBER}|x)$`);

/** `v1.33.5` → `v1.33`; undefined when not a `vMAJOR.MINOR.PATCH|x` string. */
export function minorOf(version: string): string | undefined {
  const m = SEMVER.exec(version);
  return m ? `v${m[1]}.${m[2]}` : undefined;
}

export function isVersion(version: string, allowX = false): boolean {
  const m = SEMVER.exec(version);
  return !!m && (allowX || m[3] !== 'x');
}

/** Numeric comparison of `vX.Y` minors. */
export function compareMinor(a: string, b: string): number {
  const [a1, a2] = a.slice(1).split('.').map(Number);
  const [b1, b2] = b.slice(1).split('.').map(Number);
  return a1 - b1 || a2 - b2;
}

/** Resolves `v1.33.x` to the tested patch; exact versions are returned unchanged. */
export function resolveKubernetesVersion(version: string): string | undefined {
  if (!version.endsWith('.x')) return isVersion(version) ? version : undefined;
  return KUBERNETES_TESTED_PATCHES[minorOf(version) ?? ''];
}

export interface VersionProblem {
  readonly field: 'clusterApi' | 'capo' | 'caaph';
  readonly message: string;
}

/** Checks the controller versions against the matrix. Returns one problem per field at most. */
export function checkControllerVersions(v: { clusterApi: string; capo: string; caaph: string }): VersionProblem[] {
  const problems: VersionProblem[] = [];
  const release = CLUSTER_API_RELEASES[minorOf(v.clusterApi) ?? ''];
  if (!release) {
    problems.push({
      field: 'clusterApi',
      message: `expected a supported Cluster API release (${Object.keys(CLUSTER_API_RELEASES).map((m) => `${m}.x`).join(', ')}), found "${v.clusterApi}"`,
    });
    return problems;
  }
  if (!release.capoMinors.includes(minorOf(v.capo) ?? '')) {
    problems.push({
      field: 'capo',
      message: `expected a CAPO release matching Cluster API ${v.clusterApi} (${release.capoMinors.map((m) => `${m}.x`).join(', ')}), found "${v.capo}"`,
    });
  }
  if (!release.caaphMinors.includes(minorOf(v.caaph) ?? '')) {
    problems.push({
      field: 'caaph',
      message: `expected a Helm add-on provider release matching Cluster API ${v.clusterApi} (${release.caaphMinors.map((m) => `${m}.x`).join(', ')}), found "${v.caaph}"`,
    });
  }
  return problems;
}

/** Whether a workload cluster Kubernetes version is supported by the given Cluster API version. */
export function workloadKubernetesProblem(clusterApi: string, kubernetes: string): string | undefined {
  const release = CLUSTER_API_RELEASES[minorOf(clusterApi) ?? ''];
  const minor = minorOf(kubernetes);
  if (!release || !minor) return undefined; // reported elsewhere
  const [lo, hi] = release.workloadKubernetes;
  if (compareMinor(minor, lo) < 0 || compareMinor(minor, hi) > 0) {
    return `expected a Kubernetes version between ${lo}.x and ${hi}.x (supported by Cluster API ${clusterApi}), found "${kubernetes}"`;
  }
  if (kubernetes.endsWith('.x') && !KUBERNETES_TESTED_PATCHES[minor]) {
    return `expected an exact patch version (no tested patch is known for ${minor}), found "${kubernetes}"`;
  }
  return undefined;
}
