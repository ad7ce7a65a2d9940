/**
 * Where a cluster's charts come from: each chart's public repository (the catalogue), or the
 * environment's private mirror (`chartRepository`) with its CA in a Secret beside the
 * HelmChartProxies, which name it as `tlsConfig.caSecret` (CAAPH reads the key `ca.crt`).
 */
import { EnvironmentConfig } from '../config';
import { commonLabels, KubeObject } from '../objects/kube-object';
import { AddonChart } from './catalogue';

/** The key CAAPH reads the CA from (controllers/helmreleaseproxy, v0.6.4). */
export const CHART_REPOSITORY_CA_KEY = 'ca.crt';

/** clusterctl move (the management backup) carries Secrets with this label. */
const MOVE_LABEL = 'clusterctl.cluster.x-k8s.io/move';

/** Name of the Secret holding the chart mirror's CA, in the cluster's namespace on the management cluster. */
export function chartRepositoryCaSecretName(clusterName: string): string {
  return `${clusterName}-chart-repository-ca`;
}

/** The HelmChartProxy fields that say where its chart comes from. */
export interface ChartSource {
  readonly repoURL: string;
  readonly tlsConfig?: { readonly caSecret: { readonly name: string; readonly namespace: string } };
}

/**
 * The mirror's URL when the environment names one, else the chart's public repository. The CA
 * Secret's namespace is written out: CAAPH fills it in on its own copy otherwise, and the stored
 * object would differ from what the stack applied.
 */
export function chartSource(env: EnvironmentConfig, chart: AddonChart, clusterName: string, namespace: string): ChartSource {
  const mirror = env.chartRepository;
  if (!mirror) return { repoURL: chart.repoURL };
  return {
    repoURL: mirror.url,
    ...(mirror.caCertificatePem ? { tlsConfig: { caSecret: { name: chartRepositoryCaSecretName(clusterName), namespace } } } : {}),
  };
}

/** The Secret with the mirror's CA; undefined when the environment names no mirror CA. Public data, not sensitive. */
export function chartRepositoryCaSecret(env: EnvironmentConfig, clusterName: string, namespace: string): KubeObject | undefined {
  const pem = env.chartRepository?.caCertificatePem;
  if (!pem) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: chartRepositoryCaSecretName(clusterName),
      namespace,
      // no Cluster owns it: the label makes the management backup carry it with the HelmChartProxies
      labels: commonLabels(clusterName, { [MOVE_LABEL]: 'true' }),
    },
    type: 'Opaque',
    stringData: { [CHART_REPOSITORY_CA_KEY]: pem },
  };
}
