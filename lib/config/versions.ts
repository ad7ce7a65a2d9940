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

type MinorTable = Readonly<Record<string, { readonly testedPatch: string; readonly maintenance?: string; readonly endOfLife: string }>>;
const MINORS: MinorTable = table.kubernetes.minors;

/**
 * Kubernetes patch releases that `.x` versions resolve to (the patch the project tests against).
 * Source: the k8s.io/kubernetes module of that version on the Go module proxy (the local tier builds it).
 */
export const KUBERNETES_TESTED_PATCHES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MINORS).map(([minor, m]) => [minor, m.testedPatch]),
);

/** End-of-life date (YYYY-MM-DD) of each Kubernetes minor, from the Kubernetes release calendar. */
export const KUBERNETES_END_OF_LIFE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MINORS).map(([minor, m]) => [minor, m.endOfLife]),
);

/**
 * Start of maintenance mode (YYYY-MM-DD) of each Kubernetes minor not yet past its end of life, from
 * the Kubernetes release calendar: two months before the end of life, only critical fixes from then on.
 */
export const KUBERNETES_MAINTENANCE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MINORS).flatMap(([minor, m]) => (m.maintenance ? [[minor, m.maintenance]] : [])),
);

/**
 * A warning when `version`'s minor is past its end of life on `today` (no more security fixes) or in
 * maintenance mode (critical fixes only), naming the date and the next step; undefined otherwise or
 * when the dates are unknown. `today` is injectable for tests; the default is the clock.
 */
export function kubernetesSupportWarning(version: string, today: Date = new Date()): string | undefined {
  return endOfLifeWarning(version, today) ?? maintenanceWarning(version, today);
}

/** A warning when `version`'s minor is past its end of life on `today`, naming the date and the next step. */
export function endOfLifeWarning(version: string, today: Date = new Date()): string | undefined {
  const minor = minorOf(version);
  const eol = minor ? KUBERNETES_END_OF_LIFE[minor] : undefined;
  if (!minor || !eol || isoDay(today) <= eol) return undefined;
  return `Kubernetes ${minor} reached its end of life on ${eol} and gets no security fixes; ${nextStep(minor)}`;
}

/** A warning when `version`'s minor is in maintenance mode on `today` (from its start to its end of life). */
export function maintenanceWarning(version: string, today: Date = new Date()): string | undefined {
  const minor = minorOf(version);
  const start = minor ? KUBERNETES_MAINTENANCE[minor] : undefined;
  const eol = minor ? KUBERNETES_END_OF_LIFE[minor] : undefined;
  if (!minor || !start || !eol || isoDay(today) < start || isoDay(today) > eol) return undefined;
  return `Kubernetes ${minor} is in maintenance mode since ${start} (critical fixes only; end of life on ${eol}); ${nextStep(minor)}`;
}

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** `upgrade to v1.35.x next (one minor at a time; the default is v1.36.x)`. */
function nextStep(minor: string): string {
  const next = nextMinor(minor);
  const target = minorOf(DEFAULT_KUBERNETES_VERSION)!;
  if (compareMinor(minor, target) >= 0 || next === target) return `upgrade to ${next}.x`;
  return `upgrade to ${next}.x next (one minor at a time; the default is ${target}.x)`;
}

/** `v1.35` → `v1.36`. */
export function nextMinor(minor: string): string {
  const [major, m] = minor.slice(1).split('.').map(Number);
  return `v${major}.${m + 1}`;
}

export interface ClusterApiRelease {
  /** Kubernetes minors the management cluster may run, inclusive. */
  readonly managementKubernetes: readonly [string, string];
  /** Kubernetes minors workload clusters may run, inclusive. */
  readonly workloadKubernetes: readonly [string, string];
  /**
   * Kubernetes minors added to the range by a later patch of this Cluster API minor → that patch.
   * @default {}
   */
  readonly kubernetesFromPatch?: Readonly<Record<string, string>>;
  /** CAPO minors built against this Cluster API contract. */
  readonly capoMinors: readonly string[];
  /** Helm add-on provider minors built against this Cluster API release. */
  readonly caaphMinors: readonly string[];
}

/**
 * Cluster API minor → what it supports. Kubernetes ranges are from the Cluster API book's support
 * matrix ("Supported versions matrix", core provider) and, for v1.37, which the book's matrix did not
 * list yet when this table was written, from the release notes ("Start testing K8s 1.37", v1.13.2);
 * provider minors are the combinations this project tests.
 */
export const CLUSTER_API_RELEASES: Readonly<Record<string, ClusterApiRelease>> = {
  'v1.12': {
    managementKubernetes: ['v1.31', 'v1.36'],
    workloadKubernetes: ['v1.29', 'v1.36'],
    kubernetesFromPatch: { 'v1.35': 'v1.12.1', 'v1.36': 'v1.12.8' },
    capoMinors: ['v0.14'],
    caaphMinors: ['v0.6'],
  },
  'v1.13': {
    managementKubernetes: ['v1.32', 'v1.36'],
    workloadKubernetes: ['v1.30', 'v1.37'],
    kubernetesFromPatch: { 'v1.36': 'v1.13.1', 'v1.37': 'v1.13.2' },
    capoMinors: ['v0.14'],
    caaphMinors: ['v0.6'],
  },
  // the default: CAPO v0.14 and CAAPH v0.6 (v1beta1 contract, which v1.14 still serves) run under it
  // in the control-loop e2e; the controller-upgrade e2e moves a running cluster from v1.13 to it
  'v1.14': {
    managementKubernetes: ['v1.33', 'v1.36'],
    workloadKubernetes: ['v1.31', 'v1.37'],
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
  if (!minorInRange(minor, release.workloadKubernetes)) {
    const newer = compareMinor(minor, hi) > 0 ? clusterApiFor(minor) : undefined;
    const path = newer ? `; Kubernetes ${minor} needs Cluster API ${newer} (versions.clusterApi)` : '';
    return `expected a Kubernetes version between ${lo}.x and ${hi}.x (supported by Cluster API ${clusterApi}), found "${kubernetes}"${path}`;
  }
  const fromPatch = patchNeededFor(release, clusterApi, minor);
  if (fromPatch) {
    return `expected Cluster API ${fromPatch} or newer for Kubernetes ${minor} (versions.clusterApi is ${clusterApi}), found "${kubernetes}"`;
  }
  if (kubernetes.endsWith('.x') && !KUBERNETES_TESTED_PATCHES[minor]) {
    return `expected an exact patch version (no tested patch is known for ${minor}), found "${kubernetes}"`;
  }
  return undefined;
}

/** Whether `minor` lies in a release's `[lowest, highest]` Kubernetes range. */
export function minorInRange(minor: string, [lo, hi]: readonly [string, string]): boolean {
  return compareMinor(minor, lo) >= 0 && compareMinor(minor, hi) <= 0;
}

/** The patch of `release` from which it takes Kubernetes `minor`, when `clusterApi` is older than that; else undefined. */
export function patchNeededFor(release: ClusterApiRelease, clusterApi: string, minor: string): string | undefined {
  const fromPatch = release.kubernetesFromPatch?.[minor];
  return fromPatch && isVersion(clusterApi) && comparePatch(clusterApi, fromPatch) < 0 ? fromPatch : undefined;
}

/** The oldest Cluster API release of the matrix whose workload range takes `minor`, as `vX.Y.x` (or `≥ vX.Y.Z`). */
function clusterApiFor(minor: string): string | undefined {
  for (const [capi, r] of Object.entries(CLUSTER_API_RELEASES).sort(([a], [b]) => compareMinor(a, b))) {
    if (minorInRange(minor, r.workloadKubernetes)) return r.kubernetesFromPatch?.[minor] ? `${r.kubernetesFromPatch[minor]} or newer` : `${capi}.x`;
  }
  return undefined;
}

/** Numeric comparison of exact `vX.Y.Z` versions. */
export function comparePatch(a: string, b: string): number {
  const [a1, a2, a3] = a.slice(1).split('.').map(Number);
  const [b1, b2, b3] = b.slice(1).split('.').map(Number);
  return a1 - b1 || a2 - b2 || a3 - b3;
}
