/**
 * The management cluster's Kubernetes version against the Cluster API release that runs on it.
 * The kind node image names it in its tag (`kindest/node:v1.36.1@sha256:…`); the Cluster API book's
 * support matrix gives each release a management range (CLUSTER_API_RELEASES). Outside it
 * `clusterctl init` still installs, but onto a cluster that release was never tested on.
 */
import { CLUSTER_API_RELEASES, isVersion, minorInRange, minorOf, patchNeededFor } from './versions';

/** `kindest/node:v1.36.1@sha256:…` → `v1.36.1`; undefined when the tag does not start with a version. */
export function nodeImageKubernetesVersion(image: string): string | undefined {
  const tag = /:(v\d+\.\d+\.\d+)(?:[-+][^@]*)?@sha256:/.exec(image);
  return tag && isVersion(tag[1]) ? tag[1] : undefined;
}

/** Why the node image's Kubernetes is unwise under `clusterApi`, or undefined (also when either is unknown). */
export function managementKubernetesWarning(nodeImage: string, clusterApi: string): string | undefined {
  const kubernetes = nodeImageKubernetesVersion(nodeImage);
  const capiMinor = minorOf(clusterApi);
  const release = capiMinor ? CLUSTER_API_RELEASES[capiMinor] : undefined;
  if (!kubernetes || !release) return undefined;
  const minor = minorOf(kubernetes)!;
  const [lo, hi] = release.managementKubernetes;
  if (!minorInRange(minor, release.managementKubernetes)) {
    return `the kind node image runs Kubernetes ${kubernetes}, outside the management range of Cluster API ${capiMinor} (${lo}.x to ${hi}.x): clusterctl init installs onto a cluster this release is not tested on; pick a node image of ${lo}.x to ${hi}.x or another versions.clusterApi`;
  }
  const fromPatch = patchNeededFor(release, clusterApi, minor);
  if (fromPatch) {
    return `the kind node image runs Kubernetes ${kubernetes}, which Cluster API ${capiMinor} manages from ${fromPatch} on (versions.clusterApi is ${clusterApi})`;
  }
  return undefined;
}
