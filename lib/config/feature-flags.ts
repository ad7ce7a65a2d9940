/**
 * Feature flags of environment files (`featureFlags:`), in the manner of aws-cdk's: a changed
 * default that would change running clusters on a library upgrade comes behind a flag. A file
 * without the flag keeps the old default, so upgrading the library plans no change for it; new
 * environment files set every flag of this table (environments/example.yaml does, and a test holds
 * it to that), so they get the new defaults.
 *
 * The flags live in the environment file, not in the app's cdktf.json context: `validate`,
 * `footprint` and the other operator commands read environment files without running an app, and an
 * environment built in code passes the same fields, so one file means one thing wherever it is read.
 */
import { z } from 'zod';
import type { ClusterFields, ClusterSpec } from './cluster-schema';

/** Every flag: what it changes, for the schema's description and the docs. */
export const FEATURE_FLAGS = {
  ingressNginxOffByDefault: 'ingress-nginx (retired upstream in March 2026) is off unless a cluster sets addons.ingressNginx; without the flag a cluster that does not set it gets ingress-nginx, as before.',
} as const;

export type FeatureFlagName = keyof typeof FEATURE_FLAGS;

/** What `addons.ingressNginx.enabled` defaults to, worded for descriptions. */
export const INGRESS_NGINX_DEFAULT = 'Default: false when featureFlags.ingressNginxOffByDefault is true (new environment files), else true (files written before the flag existed).';

export const featureFlagsSchema = z
  .strictObject(
    Object.fromEntries(Object.entries(FEATURE_FLAGS).map(([name, what]) => [name, z.boolean().default(false).describe(`${what} New environment files set it to true.`)])) as Record<FeatureFlagName, z.ZodDefault<z.ZodBoolean>>,
  )
  .prefault({})
  .describe('Newer defaults, opted into one by one: a file without a flag keeps the behaviour it was written for, so an upgrade of the library changes nothing in its clusters. New environment files set every flag to true (see environments/example.yaml).');

export type FeatureFlags = z.output<typeof featureFlagsSchema>;

/** The flags a new environment file sets: all of them, to true. */
export const NEW_ENVIRONMENT_FEATURE_FLAGS: Readonly<Record<FeatureFlagName, true>> = Object.fromEntries(Object.keys(FEATURE_FLAGS).map((name) => [name, true])) as Record<FeatureFlagName, true>;

/** Whether the cluster installs ingress-nginx: what it sets, else the default its file's flags give. */
export function ingressNginxEnabled(cluster: ClusterFields, flags: FeatureFlags): boolean {
  return cluster.addons.ingressNginx.enabled ?? !flags.ingressNginxOffByDefault;
}

/** A parsed cluster with the defaults that follow the flags applied. */
export function applyFeatureFlags(cluster: ClusterFields, flags: FeatureFlags): ClusterSpec {
  const { enabled: _unset, ...ingressNginx } = cluster.addons.ingressNginx;
  return { ...cluster, addons: { ...cluster.addons, ingressNginx: { enabled: ingressNginxEnabled(cluster, flags), ...ingressNginx } } };
}
