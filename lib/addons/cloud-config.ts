/**
 * How OCCM and Cinder CSI get the cluster's own OpenStack credential.
 *
 * A HelmChartProxy valuesTemplate can only read the Cluster / infrastructure objects, never a Secret,
 * so the credential cannot go through chart values. Instead:
 * 1. the workload stack puts a Secret of type `addons.cluster.x-k8s.io/resource-set` on the
 *    management cluster; its one key holds the manifest of a Secret `cloud-config` in the workload
 *    cluster's kube-system with `cloud.conf` (OCCM), `cloud-csi.conf` (Cinder CSI; same settings, its
 *    own CA path) and `ca.crt` when the OpenStack API uses a private CA;
 * 2. a ClusterResourceSet (CAPI core; clusterctl init runs with EXP_CLUSTER_RESOURCE_SET=true) selects
 *    the cluster by its `capi-openstack-cdktf/cluster` label and applies that Secret as soon as the
 *    workload API answers, re-applying it when the credential changes (strategy Reconcile);
 * 3. the OCCM and Cinder CSI charts run with `secret.create: false` and mount that Secret.
 * The credential never appears in a HelmChartProxy or in Helm release values.
 *
 * The resource-set Secret carries the credential: the stack should apply it as a sensitive
 * `kubernetes_secret_v1` (`data` = the `stringData` below), not as a plain manifest.
 */
import { stringify } from 'yaml';
import { EnvironmentConfig, ResolvedCluster } from '../config';
import { API, CLUSTER_SELECTOR_LABEL, KubeObject, commonLabels } from '../objects/kube-object';
import { ADDON_CATALOGUE, OCCM_CONFIG_DIR, cinderConfigDir, kubernetesMinor } from './catalogue';

/** Name of the Secret inside the workload cluster (kube-system). */
export const CLOUD_CONFIG_SECRET_NAME = 'cloud-config';
/** Key of the resource-set Secret that holds the workload Secret's manifest. */
export const CLOUD_CONFIG_RESOURCE_KEY = 'cloud-config.yaml';

export interface CloudCredential {
  /** Keystone URL. Opaque. */
  readonly authUrl: string;
  /** Application credential id and secret of the per-cluster credential. Opaque. */
  readonly applicationCredentialId: string;
  readonly applicationCredentialSecret: string;
  /** @default the environment's cloud region */
  readonly region?: string;
}

export interface CloudConfigInputs {
  readonly env: EnvironmentConfig;
  readonly cluster: ResolvedCluster;
  /** Namespace of the cluster's objects on the management cluster. */
  readonly namespace: string;
  readonly credential: CloudCredential;
  /** External network for load balancer floating IPs. Opaque. */
  readonly externalNetworkId: string;
  /** OVN Octavia provider for services. */
  readonly ovn: boolean;
  /** Name OCCM tags load balancers with (`--cluster-name`). */
  readonly openstackClusterName: string;
}

/** gcfg (INI) value: always quoted, so tokens resolving to any characters stay one value. */
function iniValue(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function section(name: string, entries: ReadonlyArray<[string, string | undefined]>): string[] {
  const lines = entries.filter((e): e is [string, string] => e[1] !== undefined).map(([k, v]) => `${k}=${iniValue(v)}`);
  return lines.length > 0 ? [`[${name}]`, ...lines, ''] : [];
}

/**
 * cloud.conf of OCCM (`occm`) or Cinder CSI (`csi`). They differ in where the chart mounts the
 * Secret (the CA file path) and in the sections each one reads.
 */
export function renderCloudConf(inputs: CloudConfigInputs, consumer: 'occm' | 'csi'): string {
  const { env, credential, cluster } = inputs;
  const caDir = consumer === 'occm' ? OCCM_CONFIG_DIR : cinderCaDir(cluster);
  const region = credential.region ?? env.cloud.region;
  const lines = [
    '# Managed by capi-openstack-cdktf: the cluster\'s own application credential.',
    ...section('Global', [
      ['auth-url', credential.authUrl],
      ['application-credential-id', credential.applicationCredentialId],
      ['application-credential-secret', credential.applicationCredentialSecret],
      ['region', region],
      ['ca-file', env.cloud.caCertificatePem ? `${caDir}/ca.crt` : undefined],
    ]),
    ...(consumer === 'csi'
      ? // Nova and Cinder availability zones often differ; attach volumes regardless of zone names
        section('BlockStorage', [['ignore-volume-az', 'true']])
      : section('LoadBalancer', [
          ['floating-network-id', inputs.externalNetworkId],
          ['create-monitor', 'true'],
          ...(inputs.ovn
            ? ([
                ['lb-provider', 'ovn'],
                ['lb-method', 'SOURCE_IP_PORT'],
                // OVN load balancers keep client addresses: NodePorts must be open to them
                ['manage-security-groups', 'true'],
              ] as Array<[string, string]>)
            : // OCCM asks for its own default, amphora, when none is named: not every cloud has it
              ([['lb-provider', cluster.spec.loadBalancerProvider]] as Array<[string, string | undefined]>)),
        ])),
  ];
  return lines.join('\n');
}

/**
 * Where the cluster's Cinder CSI chart mounts the Secret (its override, else the catalogue's pin for
 * its minor); without Cinder CSI nothing reads cloud-csi.conf, and its minor may have no pin.
 */
function cinderCaDir(cluster: ResolvedCluster): string {
  const csi = cluster.spec.addons.cinderCsi;
  if (!csi.enabled) return OCCM_CONFIG_DIR;
  return cinderConfigDir(csi.version ?? ADDON_CATALOGUE['cinder-csi'].defaultVersion(kubernetesMinor(cluster)));
}

/** The Secret as the workload cluster gets it. */
export function workloadCloudConfigSecret(inputs: CloudConfigInputs): KubeObject {
  const ca = inputs.env.cloud.caCertificatePem;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: CLOUD_CONFIG_SECRET_NAME, namespace: 'kube-system', labels: { 'app.kubernetes.io/managed-by': 'capi-openstack-cdktf' } },
    type: 'Opaque',
    stringData: {
      'cloud.conf': renderCloudConf(inputs, 'occm'),
      'cloud-csi.conf': renderCloudConf(inputs, 'csi'),
      ...(ca ? { 'ca.crt': ca } : {}),
    },
  };
}

export function cloudConfigResourceSetName(clusterName: string): string {
  return `${clusterName}-cloud-config`;
}

/** The resource-set Secret on the management cluster (sensitive: contains the credential). */
export function buildCloudConfigResourceSecret(inputs: CloudConfigInputs): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: cloudConfigResourceSetName(inputs.cluster.name),
      namespace: inputs.namespace,
      labels: commonLabels(inputs.cluster.name),
    },
    type: 'addons.cluster.x-k8s.io/resource-set',
    stringData: { [CLOUD_CONFIG_RESOURCE_KEY]: stringify(workloadCloudConfigSecret(inputs), { lineWidth: 0 }) },
  };
}

/** The ClusterResourceSet applying the resource-set Secret to the cluster. */
export function buildCloudConfigResourceSet(clusterName: string, namespace: string): KubeObject {
  return {
    apiVersion: API.resourceSet.version,
    kind: 'ClusterResourceSet',
    metadata: { name: cloudConfigResourceSetName(clusterName), namespace, labels: commonLabels(clusterName) },
    spec: {
      clusterSelector: { matchLabels: { [CLUSTER_SELECTOR_LABEL]: clusterName } },
      resources: [{ kind: 'Secret', name: cloudConfigResourceSetName(clusterName) }],
      strategy: 'Reconcile',
    },
  };
}
