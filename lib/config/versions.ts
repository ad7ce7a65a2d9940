/**
 * Pinned component versions and the compatibility matrix checked at synth time.
 * Bump here (and in lib/config/downloads.ts for checksummed binaries) when moving to a new release.
 */

/** Default controller versions installed by `clusterctl init` on the management cluster. */
export const DEFAULT_CONTROLLER_VERSIONS = {
  clusterApi: 'v1.12.10',
  capo: 'v0.14.7',
  caaph: 'v0.6.4',
} as const;

/**
 * Kubernetes patch releases that `.x` versions resolve to (the patch the project tests against).
 * Source: published k8s.io/api v0.<minor>.<patch> tags on the Go module proxy.
 */
export const KUBERNETES_TESTED_PATCHES: Readonly<Record<string, string>> = {
  'v1.31': 'v1.31.14',
  'v1.32': 'v1.32.13',
  'v1.33': 'v1.33.13',
  'v1.34': 'v1.34.13',
  'v1.35': 'v1.35.10',
};

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
};

const SEMVER = /^v(\d+)\.(\d+)\.(\d+|x)$/;

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
