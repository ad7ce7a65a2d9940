import * as os from 'os';
import * as path from 'path';
import { TerraformOutput, TerraformStack } from 'cdktf';
import { KubernetesProvider } from '../gen/kubernetes/provider';
import { Env } from '../gen/kubernetes/env';
import { NamespaceV1 } from '../gen/kubernetes/namespace-v1';
import { SecretV1 } from '../gen/kubernetes/secret-v1';
import { Construct } from 'constructs';
import { buildAddonObjects, buildCloudConfigSecret, cloudConfigResourceSetName } from '../addons';
import { renderCapoCloudsYaml } from '../management-vm/clouds-yaml';
import { buildClusterObjectSet, clusterNamespace, WorkloadClusterInputs } from '../capi';
import {
  CAPO_CONTROLLER,
  CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES,
  controllerInstanceCreateTimeoutMinutes,
  INSTANCE_CREATE_TIMEOUT_ENV,
} from '../capi/instance-create-timeout';
import { EnvironmentConfig, ResolvedCluster } from '../config/resolve';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';
import { DataOpenstackNetworkingNetworkV2 } from '../gen/openstack/data-openstack-networking-network-v2';
import { TimeProvider } from '../gen/time/provider';
import { capoNetworkName, fieldManagerName } from '../config/naming';
import { ClusterLeftoversCleanup } from '../openstack/cluster-leftovers';
import { MachineLookups } from '../openstack/machine-lookups';
import { keystoneUrlFromCatalog } from '../openstack/keystone-endpoint';
import { WorkloadCloudResources } from '../openstack/workload-cloud-resources';
import { EnvironmentGuard } from '../terraform/environment-guard';
import { environmentOpenstackProvider } from './openstack-provider';
import { DEFAULT_DELETE_TIMEOUT_MINUTES, KubeManifests } from '../kube/kube-manifests';
import { ManagementStack } from './management-stack';

export interface WorkloadClusterStackProps {
  /** The validated environment the cluster belongs to (cloud, prefix, management settings). */
  readonly environment: EnvironmentConfig;
  /** The cluster entry, with defaults applied and versions resolved. */
  readonly cluster: ResolvedCluster;
  /**
   * The management stack of the environment; its outputs configure the Kubernetes provider.
   * @default - the environment's existingManagementCluster kubeconfig
   */
  readonly management?: ManagementStack;
}

/** Name of the Secret with the cluster's clouds.yaml, read by CAPO. */
export const CLOUDS_SECRET_SUFFIX = 'cloud-credentials';

/**
 * `<env>-<cluster>`: one workload cluster. OpenStack pieces that must outlive CAPI (credential,
 * API floating IP, server groups) plus, on the management cluster, the namespace, the credential
 * Secret, the CAPI objects and the add-ons as HelmChartProxies. Destroy removes the Cluster first
 * and waits for CAPI to finish before the credential goes.
 */
export class WorkloadClusterStack extends TerraformStack {
  public readonly namespace: string;
  public readonly apiFloatingIp: string;

  constructor(scope: Construct, id: string, props: WorkloadClusterStackProps) {
    super(scope, id);
    const { environment: env, cluster, management } = props;
    const spec = cluster.spec;
    const name = cluster.resourceName;
    new EnvironmentGuard(this, 'Guard', env.name);
    environmentOpenstackProvider(this, env);
    new TimeProvider(this, 'Time');
    const byo = env.spec.existingManagementCluster;
    new KubernetesProvider(
      this,
      'Management',
      management
        ? {
            host: management.apiEndpoint,
            clusterCaCertificate: management.caCertificatePem,
            clientCertificate: management.adminCertificatePem,
            clientKey: management.adminKeyPem,
          }
        : { configPath: existingKubeconfigPath(env.file, byo!.kubeconfigFile), configContext: byo!.context },
    );

    // The external network: from the management stack, or looked up like the management stack would.
    const external = management
      ? { id: management.externalNetworkId, name: management.externalNetworkName }
      : new DataOpenstackNetworkingNetworkV2(this, 'ExternalNetwork', {
          external: true,
          name: env.spec.network.externalNetworkId ? undefined : env.spec.network.externalNetworkName,
          networkId: env.spec.network.externalNetworkId,
        });

    const cloud = new WorkloadCloudResources(this, 'Cloud', {
      namePrefix: name,
      externalNetworkName: external.name,
      controlPlaneAntiAffinity: spec.controlPlane.antiAffinity,
      nodeGroupAntiAffinity: Object.fromEntries(spec.nodeGroups.map((g) => [g.name, g.antiAffinity])),
      credentialExpiresInDays: spec.applicationCredentialExpiresInDays,
    });
    this.apiFloatingIp = cloud.apiFloatingIp.address;

    const authScope = env.cloud.authUrl && env.cloud.region ? undefined : new DataOpenstackIdentityAuthScopeV3(this, 'AuthScope', { name: 'current' });
    // one token-scope read per stack: the lookups share the stack's when it has one
    new MachineLookups(this, 'Machines', {
      flavorNames: [spec.controlPlane.flavor, ...spec.nodeGroups.map((g) => g.flavor)],
      imageName: cluster.nodeImage,
      authScope,
    });
    const authUrl = env.cloud.authUrl ?? keystoneUrlFromCatalog(this, authScope!, env.cloud.interface);
    const region = env.cloud.region ?? authScope!.region;

    const inputs: WorkloadClusterInputs = {
      env,
      cluster,
      apiServerFloatingIp: cloud.apiFloatingIp.address,
      cloudsSecretName: `${cluster.name}-${CLOUDS_SECRET_SUFFIX}`,
      externalNetworkId: external.id,
      managementCidrForApiAccess: management ? `${management.floatingIp}/32` : byo?.egressCidr ?? '',
      serverGroupIds: { controlPlane: cloud.controlPlaneServerGroupId, nodeGroups: cloud.nodeGroupServerGroupIds },
      nodeSecurityGroupNames: management ? [management.nodeAccessSecurityGroupName] : [],
    };
    this.namespace = clusterNamespace(inputs);

    const namespace = new NamespaceV1(this, 'Namespace', {
      metadata: { name: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'capi-openstack-cdktf', 'capi-openstack-cdktf/environment': env.name } },
    });
    const cloudsSecret = new SecretV1(this, 'CloudsSecret', {
      metadata: { name: inputs.cloudsSecretName, namespace: namespace.metadata.name, labels: { 'clusterctl.cluster.x-k8s.io/move': 'true' } },
      data: {
        'clouds.yaml': renderCapoCloudsYaml({
          cloudName: 'openstack',
          authUrl,
          regionName: region,
          interface: env.cloud.interface,
          applicationCredentialId: cloud.credential.credentialId,
          applicationCredentialSecret: cloud.credential.secret,
          caCertPath: env.cloud.caCertificatePem ? '/etc/openstack/cacert.pem' : undefined,
        }),
        ...(env.cloud.caCertificatePem ? { cacert: env.cloud.caCertificatePem } : {}),
      },
    });

    // OCCM / Cinder CSI credential, delivered into the workload cluster by a ClusterResourceSet.
    const credentialDeps = [namespace, cloudsSecret, cloud.credential.resource];
    const cloudConfig = buildCloudConfigSecret({
      env,
      cluster,
      namespace: this.namespace,
      externalNetworkId: external.id,
      credential: { authUrl, applicationCredentialId: cloud.credential.credentialId, applicationCredentialSecret: cloud.credential.secret, region },
    });
    if (cloudConfig) {
      credentialDeps.push(
        new SecretV1(this, 'CloudConfigSecret', {
          metadata: { name: cloudConfigResourceSetName(cluster.name), namespace: namespace.metadata.name, labels: cloudConfig.metadata.labels as Record<string, string> },
          type: cloudConfig.type as string,
          data: cloudConfig.stringData as Record<string, string>,
        }),
      );
    }

    const set = buildClusterObjectSet(inputs);
    // Templates are renamed when their content changes: the new one is created, the control plane /
    // MachineDeployment repointed, and only then the old one deleted (create_before_destroy, which
    // Terraform extends to the templates' dependencies: only the namespace, never the credential).
    const templates = new KubeManifests(this, 'Templates', {
      objects: [set.controlPlaneMachineTemplate, ...Object.values(set.nodeGroups).flatMap((g) => [g.machineTemplate, g.bootstrapTemplate])],
      dependsOn: [namespace],
      createBeforeDestroy: true,
    });
    const parts = new KubeManifests(this, 'Capi', {
      objects: [set.openStackCluster, set.controlPlane, ...Object.values(set.nodeGroups).map((g) => g.machineDeployment), ...set.machineHealthChecks],
      dependsOn: credentialDeps,
      referencedSets: [templates],
    });
    const addons = new KubeManifests(this, 'Addons', {
      objects: buildAddonObjects({ env, cluster, namespace: this.namespace }),
      dependsOn: credentialDeps,
    });
    const controllerSettings = capoInstanceCreateTimeout(this, env, cluster);
    // The Cluster depends on everything else, so destroy deletes it first and waits (bounded)
    // until CAPI has removed machines, load balancers and networks; then the rest, then credentials.
    new KubeManifests(this, 'Cluster', {
      objects: [set.cluster],
      dependsOn: [...credentialDeps, ...templates.all, ...parts.all, ...addons.all, ...(controllerSettings ? [controllerSettings] : [])],
    });

    // What the cluster's own controllers created (OCCM load balancers, Cinder CSI volumes) is no
    // Terraform resource: this cleanup runs on destroy alongside the Cluster deletion (neither
    // depends on the other), waits until CAPI has removed the machines, then deletes them, which
    // also lets CAPO delete the cluster network. The credential goes only after both.
    new ClusterLeftoversCleanup(this, 'Leftovers', {
      clusterName: cluster.resourceName,
      cloud: env.cloud.name,
      cloudsFile: env.spec.cloud.cloudsFile ? env.cloud.cloudsFile : undefined,
      region: env.cloud.region,
      endpointInterface: env.cloud.interface,
      caCertificatePem: env.cloud.caCertificatePem,
      machineNetworkName: capoNetworkName(this.namespace, cluster.name),
      deleteVolumes: spec.deleteVolumesOnDestroy,
      // it waits for the machines alongside the Cluster's deletion: at least as long as that may take
      timeoutMinutes: DEFAULT_DELETE_TIMEOUT_MINUTES + 5,
      dependsOn: [cloud.credential.resource, cloudsSecret],
    });

    new TerraformOutput(this, 'namespace', { value: this.namespace, description: 'Namespace of the cluster objects on the management cluster' });
    new TerraformOutput(this, 'kubeconfig_secret', {
      value: { namespace: this.namespace, name: `${cluster.name}-kubeconfig`, key: 'value' },
      description: `Secret on the management cluster holding the workload admin kubeconfig (written by CAPI once the control plane is up); get it with: capi-openstack kubeconfig ${env.name} ${cluster.name}`,
    });
    new TerraformOutput(this, 'api_endpoint', { value: `https://${cloud.apiFloatingIp.address}:6443` });
    new TerraformOutput(this, 'application_credential_id', { value: cloud.credential.credentialId });
  }
}

/**
 * CAPO reads its instance create timeout from one environment variable for all clusters: set it to
 * the environment's largest value (nothing when that is CAPO's default), under a field manager of
 * this cluster so the value stays while any cluster that wants it exists.
 */
function capoInstanceCreateTimeout(scope: Construct, env: EnvironmentConfig, cluster: ResolvedCluster): Env | undefined {
  const minutes = controllerInstanceCreateTimeoutMinutes(env);
  if (minutes === CAPO_DEFAULT_INSTANCE_CREATE_TIMEOUT_MINUTES) return undefined;
  return new Env(scope, 'CapoInstanceCreateTimeout', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CAPO_CONTROLLER.deployment, namespace: CAPO_CONTROLLER.namespace },
    container: CAPO_CONTROLLER.container,
    env: [{ name: INSTANCE_CREATE_TIMEOUT_ENV, value: String(minutes) }],
    fieldManager: fieldManagerName(env.name, cluster.name),
    force: true,
  });
}

/**
 * The kubeconfig of an existing management cluster as the kubernetes provider needs it: Terraform
 * runs in cdktf.out/stacks/<stack>, so a relative path is resolved against the environment file's
 * directory (as the CLI does), and `~/` against the home directory.
 */
export function existingKubeconfigPath(environmentFile: string, kubeconfigFile: string): string {
  const expanded = kubeconfigFile === '~' || kubeconfigFile.startsWith('~/') ? path.join(os.homedir(), kubeconfigFile.slice(1)) : kubeconfigFile;
  return path.resolve(path.dirname(environmentFile), expanded);
}
