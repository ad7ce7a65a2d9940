/**
 * The add-on catalogue: for every add-on the Helm chart (repository, name, pinned version), where it
 * is installed and how its values follow from the cluster configuration.
 *
 * Pinned versions are published chart releases (checked against public release records, late 2026);
 * every one can be overridden per cluster with `addons.<name>.version`.
 * Values are plain data here; helm-chart-proxies.ts turns them into the HelmChartProxy valuesTemplate.
 */
import { EnvironmentConfig, ResolvedCluster, gatewayImplementation, minorOf } from '../config';
import { UNINITIALIZED_NODE_TAINT } from '../config/cloud-controller-warning';
import { CINDER_CSI_CHART_VERSIONS, OCCM_CHART_VERSIONS, fixed, perMinor } from './chart-versions';
import { TRAEFIK_VALUES } from './traefik-values';

export type AddonId =
  | 'cilium'
  | 'calico'
  | 'openstack-cloud-controller-manager'
  | 'cinder-csi'
  | 'snapshot-controller'
  | 'metrics-server'
  | 'kubelet-csr-approver'
  | 'ingress-nginx'
  | 'cert-manager'
  | 'flux'
  | 'gateway-api-crds'
  | 'traefik';

/** Everything a values function may use. All plan-time values (no cdktf tokens). */
export interface AddonContext {
  readonly env: EnvironmentConfig;
  readonly cluster: ResolvedCluster;
  /** Services get OVN load balancers (cloud.conf lb-provider=ovn). */
  readonly ovn: boolean;
  /** CNI MTU (cloud MTU − 50); undefined = the CNI detects it. */
  readonly cniMtu?: number;
  /** Secret in the workload cluster's kube-system with cloud.conf, cloud-csi.conf and ca.crt (see cloud-config.ts). */
  readonly cloudConfigSecretName: string;
  /** Name OCCM and Cinder CSI tag their OpenStack resources with (unique per project). */
  readonly openstackClusterName: string;
}

export interface AddonChart {
  readonly id: AddonId;
  readonly description: string;
  /** https:// repository or oci:// registry path (without the chart name). */
  readonly repoURL: string;
  readonly chartName: string;
  /** Pinned chart version for a Kubernetes minor (`v1.33`); throws when nothing is pinned for it. */
  readonly defaultVersion: (kubernetesMinor: string) => string;
  readonly releaseName: string;
  /** Namespace in the workload cluster. */
  readonly namespace: string;
  readonly values: (ctx: AddonContext) => Record<string, unknown>;
}

/** Tolerations that let a pod run on control-plane nodes (before workers exist). */
const controlPlaneTolerations = [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }];

/** Path where OCCM mounts the cloud-config Secret (chart `secret.enabled`). */
export const OCCM_CONFIG_DIR = '/etc/config';
/**
 * Path where the Cinder CSI chart mounts the cloud-config Secret: `/etc/config` from chart 2.33.0
 * (the chart's own change, "use /etc/config/ for cloud.conf"), `/etc/kubernetes` before it.
 */
export function cinderConfigDir(chartVersion: string): string {
  const [major, minor] = chartVersion.replace(/^v/, '').split('.').map((n) => parseInt(n, 10));
  return major > 2 || (major === 2 && minor >= 33) ? '/etc/config' : '/etc/kubernetes';
}
export const CINDER_CSI_DRIVER = 'cinder.csi.openstack.org';

export const ADDON_CATALOGUE: Readonly<Record<AddonId, AddonChart>> = {
  cilium: {
    id: 'cilium',
    description: 'Cilium CNI (VXLAN tunnel, kube-proxy kept)',
    repoURL: 'https://helm.cilium.io',
    chartName: 'cilium',
    defaultVersion: fixed('1.18.5'),
    releaseName: 'cilium',
    namespace: 'kube-system',
    values: (ctx) => ({
      // pod CIDRs come from the nodes' spec.podCIDR (kubeadm podSubnet = the cluster's podCidr)
      ipam: { mode: 'kubernetes' },
      routingMode: 'tunnel',
      tunnelProtocol: 'vxlan',
      ...(ctx.cniMtu ? { MTU: ctx.cniMtu } : {}),
      operator: { replicas: 1 },
      // BPF host routing sends pod traffic past the host's netfilter, so past the nodes' metadata
      // block (capi/metadata-block.ts). These values already fall back to legacy routing (it needs
      // BPF masquerading, off here); this keeps it so whatever else changes.
      ...(ctx.cluster.spec.blockMetadataService ? { bpf: { hostLegacyRouting: true } } : {}),
      ...(ctx.cluster.spec.addons.gatewayApi.enabled && gatewayImplementation(ctx.cluster.spec.addons) === 'cilium'
        ? { nodePort: { enabled: true }, gatewayAPI: { enabled: true } }
        : {}),
    }),
  },
  calico: {
    id: 'calico',
    description: 'Calico CNI through the Tigera operator (BGP + IP-in-IP)',
    repoURL: 'https://docs.tigera.io/calico/charts',
    chartName: 'tigera-operator',
    defaultVersion: fixed('v3.30.3'),
    releaseName: 'calico',
    namespace: 'tigera-operator',
    values: (ctx) => ({
      installation: {
        cni: { type: 'Calico' },
        calicoNetwork: {
          bgp: 'Enabled',
          ...(ctx.cniMtu ? { mtu: ctx.cniMtu } : {}),
          ipPools: [{ cidr: ctx.cluster.spec.network.podCidr, encapsulation: 'IPIP', natOutgoing: 'Enabled', nodeSelector: 'all()', blockSize: 26 }],
        },
      },
    }),
  },
  'openstack-cloud-controller-manager': {
    id: 'openstack-cloud-controller-manager',
    description: 'OpenStack cloud controller manager (node lifecycle, Octavia load balancers)',
    repoURL: 'https://kubernetes.github.io/cloud-provider-openstack',
    chartName: 'openstack-cloud-controller-manager',
    defaultVersion: perMinor(OCCM_CHART_VERSIONS, 'openstack-cloud-controller-manager'),
    releaseName: 'openstack-cloud-controller-manager',
    namespace: 'kube-system',
    values: (ctx) => ({
      // cloud.conf comes from the Secret the ClusterResourceSet applies (the cluster's own credential)
      secret: { enabled: true, create: false, name: ctx.cloudConfigSecretName },
      cluster: { name: ctx.openstackClusterName },
      // no `route` controller: the cluster uses an overlay network, not Neutron routes
      enabledControllers: ['cloud-node', 'cloud-node-lifecycle', 'service'],
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
      // no Node is initialised without it: under disk pressure a kubelet admits critical pods only,
      // it evicts them last, and nothing of lower priority preempts them (the chart sets none)
      priorityClassName: 'system-cluster-critical',
      tolerations: [
        { key: UNINITIALIZED_NODE_TAINT, value: 'true', effect: 'NoSchedule' },
        { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      ],
    }),
  },
  'cinder-csi': {
    id: 'cinder-csi',
    description: 'Cinder CSI driver + StorageClasses',
    repoURL: 'https://kubernetes.github.io/cloud-provider-openstack',
    chartName: 'openstack-cinder-csi',
    defaultVersion: perMinor(CINDER_CSI_CHART_VERSIONS, 'openstack-cinder-csi'),
    releaseName: 'cinder-csi',
    namespace: 'kube-system',
    values: (ctx) => ({
      secret: { enabled: true, create: false, name: ctx.cloudConfigSecretName, filename: 'cloud-csi.conf' },
      clusterID: ctx.openstackClusterName,
      storageClass: {
        enabled: true,
        delete: { isDefault: ctx.cluster.spec.addons.cinderCsi.defaultStorageClass, allowVolumeExpansion: true },
        retain: { isDefault: false, allowVolumeExpansion: true },
      },
    }),
  },
  'snapshot-controller': {
    id: 'snapshot-controller',
    description: 'CSI snapshot controller + snapshot CRDs + the Cinder VolumeSnapshotClass',
    repoURL: 'https://piraeus.io/helm-charts/',
    chartName: 'snapshot-controller',
    defaultVersion: fixed('5.0.3'),
    releaseName: 'snapshot-controller',
    namespace: 'kube-system',
    values: () => ({
      controller: {
        volumeSnapshotClasses: [
          {
            name: 'csi-cinder-snapclass',
            driver: CINDER_CSI_DRIVER,
            deletionPolicy: 'Delete',
            annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' },
          },
        ],
      },
    }),
  },
  'metrics-server': {
    id: 'metrics-server',
    description: 'metrics-server, verifying kubelet serving certificates (no --kubelet-insecure-tls)',
    repoURL: 'https://kubernetes-sigs.github.io/metrics-server/',
    chartName: 'metrics-server',
    defaultVersion: fixed('3.13.1'),
    releaseName: 'metrics-server',
    namespace: 'kube-system',
    // The chart's defaultArgs (InternalIP first, no --kubelet-insecure-tls) stay as they are: kubelets
    // serve certificates signed by the cluster CA (serverTLSBootstrap + kubelet-csr-approver), which
    // metrics-server trusts through its service account CA; the node InternalIP is among their SANs.
    values: () => ({}),
  },
  'kubelet-csr-approver': {
    id: 'kubelet-csr-approver',
    description: 'Approves kubelet serving certificate requests of this cluster\'s nodes',
    repoURL: 'https://postfinance.github.io/kubelet-csr-approver',
    chartName: 'kubelet-csr-approver',
    defaultVersion: fixed('1.2.13'),
    releaseName: 'kubelet-csr-approver',
    namespace: 'kube-system',
    values: (ctx) => ({
      // node names are the CAPI Machine names, which all start with the cluster name
      providerRegex: `^${ctx.cluster.name.replace(/[.]/g, '\\.')}-[a-z0-9-]+$`,
      providerIpPrefixes: [ctx.cluster.spec.network.nodeCidr],
      // node names are not in DNS
      bypassDnsResolution: true,
      tolerations: controlPlaneTolerations,
    }),
  },
  'ingress-nginx': {
    id: 'ingress-nginx',
    description: 'ingress-nginx behind an Octavia load balancer',
    repoURL: 'https://kubernetes.github.io/ingress-nginx',
    chartName: 'ingress-nginx',
    defaultVersion: fixed('4.13.3'),
    releaseName: 'ingress-nginx',
    namespace: 'ingress-nginx',
    values: (ctx) => ingressNginxValues(ctx),
  },
  'cert-manager': {
    id: 'cert-manager',
    description: 'cert-manager (with its CRDs)',
    repoURL: 'https://charts.jetstack.io',
    chartName: 'cert-manager',
    defaultVersion: fixed('v1.19.4'),
    releaseName: 'cert-manager',
    namespace: 'cert-manager',
    values: () => ({ crds: { enabled: true } }),
  },
  flux: {
    id: 'flux',
    description: 'Flux controllers',
    repoURL: 'https://fluxcd-community.github.io/helm-charts',
    chartName: 'flux2',
    defaultVersion: fixed('2.16.2'),
    releaseName: 'flux',
    namespace: 'flux-system',
    values: () => ({}),
  },
  'gateway-api-crds': {
    id: 'gateway-api-crds',
    description: 'Gateway API v1.3.0 standard CRDs (packaged by Envoy Gateway v1.5), used by the Cilium gateway',
    repoURL: 'oci://docker.io/envoyproxy',
    chartName: 'gateway-crds-helm',
    defaultVersion: fixed('v1.5.0'),
    releaseName: 'gateway-api-crds',
    namespace: 'kube-system',
    values: () => ({ crds: { gatewayAPI: { enabled: true, channel: 'standard' }, envoyGateway: { enabled: false } } }),
  },
  traefik: {
    id: 'traefik',
    description: 'Traefik as the Gateway API implementation, with any CNI: GatewayClass traefik, Gateway traefik-gateway behind an Octavia load balancer',
    repoURL: 'https://traefik.github.io/charts',
    chartName: 'traefik',
    // Traefik v3.7.13, built against Gateway API v1.6.1
    defaultVersion: fixed('41.6.0'),
    releaseName: 'traefik',
    namespace: 'traefik',
    values: () => TRAEFIK_VALUES,
  },
};

/** PROXY protocol towards nginx, unless OVN (which keeps client addresses itself) or switched off. */
export function ingressUsesProxyProtocol(ctx: Pick<AddonContext, 'ovn' | 'cluster'>): boolean {
  return !ctx.ovn && ctx.cluster.spec.addons.ingressNginx.proxyProtocol;
}

function ingressNginxValues(ctx: AddonContext): Record<string, unknown> {
  const proxy = ingressUsesProxyProtocol(ctx);
  const annotations: Record<string, string> = ctx.ovn
    ? {}
    : {
        'loadbalancer.openstack.org/enable-health-monitor': 'true',
        ...(proxy ? { 'loadbalancer.openstack.org/proxy-protocol': 'true' } : {}),
      };
  return {
    controller: {
      ingressClassResource: { default: true },
      service: {
        // only nodes running a controller pod receive traffic; the source address is kept
        externalTrafficPolicy: 'Local',
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      },
      ...(proxy
        ? {
            config: {
              'use-proxy-protocol': 'true',
              // the Octavia amphora sits in the node subnet; trust PROXY headers only from there
              'proxy-real-ip-cidr': ctx.cluster.spec.network.nodeCidr,
            },
          }
        : {}),
    },
  };
}

/** Kubernetes minor of a cluster, e.g. `v1.33`. */
export function kubernetesMinor(cluster: ResolvedCluster): string {
  return minorOf(cluster.kubernetesVersion) ?? cluster.kubernetesVersion;
}
