/**
 * HelmChartProxy objects (Cluster API add-on provider for Helm) for the enabled add-ons of a cluster,
 * plus the ClusterResourceSet that delivers the cloud credential (see cloud-config.ts).
 * A disabled add-on yields no object, so the stack deletes its HelmChartProxy and CAAPH uninstalls the release.
 */
import { stringify } from 'yaml';
import { EnvironmentConfig, ResolvedCluster, gatewayImplementation } from '../config';
import { API, CLUSTER_SELECTOR_LABEL, KubeObject, commonLabels } from '../objects/kube-object';
import { jsonCopy } from '../objects/json-copy';
import { ADDON_CATALOGUE, AddonContext, AddonId, kubernetesMinor } from './catalogue';
import { chartRepositoryCaSecret, chartSource } from './chart-repository';
import { exactChartVersion } from './chart-versions';
import { CLOUD_CONFIG_SECRET_NAME, CloudConfigInputs, CloudCredential, buildCloudConfigResourceSecret, buildCloudConfigResourceSet } from './cloud-config';

export interface AddonInputs {
  readonly env: EnvironmentConfig;
  readonly cluster: ResolvedCluster;
  /**
   * Namespace of the cluster's objects on the management cluster (the Cluster's namespace).
   * @default the cluster's resolved `namespace`, as for the CAPI objects
   */
  readonly namespace?: string;
  /**
   * Whether the cloud offers the OVN Octavia provider; consulted only for `ovnLoadBalancer: auto`.
   * The construct finds out (e.g. from the Octavia provider list) and passes it; absent = no (amphora).
   */
  readonly ovnAvailable?: boolean;
}

export interface CloudConfigAddonInputs extends AddonInputs {
  readonly credential: CloudCredential;
  /** External network id for load balancer floating IPs. Opaque. */
  readonly externalNetworkId: string;
}

/** One add-on to install: the catalogue entry and the chart version to use. */
export interface EnabledAddon {
  readonly id: AddonId;
  readonly version: string;
}

/** `ovnLoadBalancer`: true/false as given; `auto` = what the construct found (default no); `loadBalancerProvider: ovn` means true. */
export function resolveOvn(cluster: ResolvedCluster, ovnAvailable?: boolean): boolean {
  if (cluster.spec.loadBalancerProvider === 'ovn') return true;
  const v = cluster.spec.ovnLoadBalancer;
  return v === 'auto' ? ovnAvailable === true : v;
}

/** The cloud's MTU minus the VXLAN/IP-in-IP overhead; undefined when the MTU is detected (0). */
export function cniMtu(env: EnvironmentConfig): number | undefined {
  const mtu = env.spec.network.mtu;
  return mtu > 0 ? mtu - 50 : undefined;
}

/** Namespace of the cluster's objects: the one given, else the cluster's resolved namespace. */
function namespaceOf(inputs: AddonInputs): string {
  return inputs.namespace ?? inputs.cluster.namespace;
}

/** The add-ons a cluster gets, in install-relevant order (CNI first). */
export function enabledAddons(cluster: ResolvedCluster): EnabledAddon[] {
  const a = cluster.spec.addons;
  const minor = kubernetesMinor(cluster);
  const pick = (id: AddonId, override?: string): EnabledAddon => ({ id, version: exactChartVersion(ADDON_CATALOGUE[id].chartName, override ?? ADDON_CATALOGUE[id].defaultVersion(minor)) });
  const out: EnabledAddon[] = [pick(a.cni.type, a.cni.version)];
  if (a.openstackCloudControllerManager.enabled) out.push(pick('openstack-cloud-controller-manager', a.openstackCloudControllerManager.version));
  if (a.cinderCsi.enabled) out.push(pick('cinder-csi', a.cinderCsi.version), pick('snapshot-controller', a.cinderCsi.snapshotControllerVersion));
  // kubelet serving certificates need an approver; both come and go with metrics-server
  if (a.metricsServer.enabled) out.push(pick('metrics-server', a.metricsServer.version), pick('kubelet-csr-approver'));
  if (a.ingressNginx.enabled) out.push(pick('ingress-nginx', a.ingressNginx.version));
  if (a.certManager.enabled) out.push(pick('cert-manager', a.certManager.version));
  if (a.flux.enabled) out.push(pick('flux', a.flux.version));
  if (a.gatewayApi.enabled && a.gatewayApi.crds) out.push(pick('gateway-api-crds', a.gatewayApi.version));
  if (a.gatewayApi.enabled && gatewayImplementation(a) === 'traefik') out.push(pick('traefik', a.gatewayApi.traefikVersion));
  return out;
}

/** Whether the cluster needs the cloud-config Secret (OCCM or Cinder CSI enabled). */
export function needsCloudConfig(cluster: ResolvedCluster): boolean {
  return cluster.spec.addons.openstackCloudControllerManager.enabled || cluster.spec.addons.cinderCsi.enabled;
}

export function addonContext(inputs: AddonInputs): AddonContext {
  return {
    env: inputs.env,
    cluster: inputs.cluster,
    ovn: resolveOvn(inputs.cluster, inputs.ovnAvailable),
    cniMtu: cniMtu(inputs.env),
    cloudConfigSecretName: CLOUD_CONFIG_SECRET_NAME,
    openstackClusterName: inputs.cluster.resourceName,
  };
}

/**
 * The valuesTemplate is a Go template (CAAPH renders it against the Cluster). Values here are plain
 * data: any `{{` is escaped so it reaches Helm literally.
 */
export function valuesTemplate(values: Record<string, unknown>): string {
  if (Object.keys(values).length === 0) return '';
  return stringify(values, { lineWidth: 0, sortMapEntries: true }).replace(/\{\{/g, '{{ "{{" }}');
}

export function helmChartProxyName(clusterName: string, id: AddonId): string {
  const short: Partial<Record<AddonId, string>> = { cilium: 'cni', calico: 'cni', 'openstack-cloud-controller-manager': 'occm' };
  return `${clusterName}-${short[id] ?? id}`;
}

/** clusterctl move carries every object with this label, and what it owns. */
export const MOVE_HIERARCHY_LABEL = 'clusterctl.cluster.x-k8s.io/move-hierarchy';

export function buildHelmChartProxy(inputs: AddonInputs, addon: EnabledAddon, ctx: AddonContext = addonContext(inputs)): KubeObject {
  const chart = ADDON_CATALOGUE[addon.id];
  const values = valuesTemplate(chart.values(ctx));
  return {
    apiVersion: API.helm.version,
    kind: 'HelmChartProxy',
    metadata: {
      name: helmChartProxyName(inputs.cluster.name, addon.id),
      namespace: namespaceOf(inputs),
      // No Cluster owns a HelmChartProxy: this label makes `clusterctl move` (the management backup)
      // carry it, with the HelmReleaseProxies CAAPH made from it.
      labels: commonLabels(inputs.cluster.name, { 'capi-openstack-cdktf/addon': addon.id, [MOVE_HIERARCHY_LABEL]: 'true' }),
    },
    spec: {
      clusterSelector: { matchLabels: { [CLUSTER_SELECTOR_LABEL]: inputs.cluster.name } },
      ...chartSource(inputs.env, chart, inputs.cluster.name, namespaceOf(inputs)),
      chartName: chart.chartName,
      version: addon.version,
      releaseName: chart.releaseName,
      namespace: chart.namespace,
      ...(values ? { valuesTemplate: values } : {}),
      reconcileStrategy: 'Continuous',
      // the CRD defaults, written out so the stored object equals what the stack applied
      options: { enableClientCache: false, install: { createNamespace: true }, upgrade: { maxHistory: 10 } },
    },
  };
}

/**
 * One HelmChartProxy per enabled add-on, plus the ClusterResourceSet of the cloud-config Secret when
 * OCCM or Cinder CSI is enabled. The resource-set Secret itself carries the credential and comes from
 * buildCloudConfigSecret.
 */
export function buildAddonObjects(inputs: AddonInputs): KubeObject[] {
  const ctx = addonContext(inputs);
  const objects = enabledAddons(inputs.cluster).map((a) => buildHelmChartProxy(inputs, a, ctx));
  if (needsCloudConfig(inputs.cluster)) objects.push(buildCloudConfigResourceSet(inputs.cluster.name, namespaceOf(inputs)));
  return jsonCopy(objects);
}

/** The Secret with the chart mirror's CA that the HelmChartProxies name; undefined without a mirror CA. */
export function buildChartRepositoryCaSecret(inputs: AddonInputs): KubeObject | undefined {
  return chartRepositoryCaSecret(inputs.env, inputs.cluster.name, namespaceOf(inputs));
}

/** The sensitive resource-set Secret; undefined when neither OCCM nor Cinder CSI is enabled. */
export function buildCloudConfigSecret(inputs: CloudConfigAddonInputs): KubeObject | undefined {
  if (!needsCloudConfig(inputs.cluster)) return undefined;
  const cfg: CloudConfigInputs = {
    env: inputs.env,
    cluster: inputs.cluster,
    namespace: namespaceOf(inputs),
    credential: inputs.credential,
    externalNetworkId: inputs.externalNetworkId,
    ovn: resolveOvn(inputs.cluster, inputs.ovnAvailable),
    openstackClusterName: inputs.cluster.resourceName,
  };
  return buildCloudConfigResourceSecret(cfg);
}
