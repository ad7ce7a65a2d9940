/**
 * ingress-nginx was retired upstream in March 2026: no further releases, no security fixes; the
 * Kubernetes project points to Gateway API. `validate` (and synthesis) warn wherever a cluster
 * still installs it, saying whether the file set it or the old default did, and how to move off.
 */
import type { ClusterFields } from './cluster-schema';
import { FeatureFlags, ingressNginxEnabled } from './feature-flags';

/** Where the migration is described (docs/addons.md). */
export const INGRESS_MIGRATION_DOC = 'docs/addons.md#moving-off-ingress-nginx';

/** The warning for one cluster; undefined when it does not install ingress-nginx. */
export function ingressNginxRetiredWarning(clusterName: string, cluster: ClusterFields, flags: FeatureFlags): string | undefined {
  if (!ingressNginxEnabled(cluster, flags)) return undefined;
  const set = cluster.addons.ingressNginx.enabled;
  const warning = `ingress-nginx (cluster "${clusterName}") is retired upstream since March 2026: no releases or security fixes. Move its Ingresses to Gateway API (${INGRESS_MIGRATION_DOC}), then set addons.ingressNginx: false, which uninstalls it`;
  // the defaulted case only adds to the wording: an environment built in code is recorded with its
  // defaults applied, and `validate --app-dir` recognises the synthesis warning by this prefix
  if (set === true) return warning;
  return `${warning}. It is on by the default of files without featureFlags.ingressNginxOffByDefault; setting that flag to true turns it off in every cluster that does not set addons.ingressNginx`;
}
