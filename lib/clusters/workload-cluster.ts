import { ITerraformDependable, TerraformOutput } from 'cdktf';
import { Construct } from 'constructs';
import { buildAddonObjects, buildChartRepositoryCaSecret, buildCloudConfigSecret, cloudConfigResourceSetName } from '../addons';
import { buildClusterObjectSet, clusterNamespace, WorkloadClusterInputs } from '../capi';
import { capoNetworkName } from '../config/naming';
import { EnvironmentConfig, ResolvedCluster } from '../config/resolve';
import { WorkloadOutput } from '../config/stack-records';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';
import { DataOpenstackNetworkingNetworkV2 } from '../gen/openstack/data-openstack-networking-network-v2';
import { NamespaceV1 } from '../gen/kubernetes/namespace-v1';
import { SecretV1 } from '../gen/kubernetes/secret-v1';
import { ControlPlaneUpgradeGate, ManagementAccess } from '../kube/control-plane-upgrade-gate';
import { DEFAULT_DELETE_TIMEOUT_MINUTES, KubeManifests } from '../kube/kube-manifests';
import { renderCapoCloudsYaml } from '../management-vm/clouds-yaml';
import { ClusterLeftoversCleanup } from '../openstack/cluster-leftovers';
import { keystoneUrlFromCatalog } from '../openstack/keystone-endpoint';
import { MachineLookups } from '../openstack/machine-lookups';
import { WorkloadCloudResources } from '../openstack/workload-cloud-resources';
import { capoInstanceCreateTimeout } from './capo-instance-create-timeout';
import { IManagementCluster } from './management-cluster-ref';
import { guardWorkloadCluster } from './workload-cluster-guards';
import { StackRecord } from './stack-record';
import { useEnvironmentStateBackend } from '../terraform/state-backend';

/** Where the cluster's objects go: a management cluster created with this library, or an existing one. */
export type WorkloadManagement =
  | { readonly kind: 'created'; readonly cluster: IManagementCluster }
  | {
      readonly kind: 'existing';
      /** Address range the existing management cluster reaches workload APIs from. @default - none */
      readonly egressCidr?: string;
      /**
       * Kubeconfig of the existing management cluster (absolute path) and its context, which the
       * control-plane upgrade gate reads on the operator's machine at apply.
       * @default - the file KUBECONFIG names at apply time (else ~/.kube/config), its current context
       */
      readonly kubeconfigFile?: string;
      readonly context?: string;
    };

export interface WorkloadClusterProps {
  /** The validated environment the cluster belongs to (cloud, prefix, management settings). */
  readonly environment: EnvironmentConfig;
  /** The cluster entry, with defaults applied and versions resolved. */
  readonly cluster: ResolvedCluster;
  /** The management cluster the objects go to: `{ kind: 'created', cluster }` or `{ kind: 'existing', egressCidr }`. */
  readonly management: WorkloadManagement;
}

/** Where the cluster's controllers log in: Keystone's URL and the region. */
interface KeystoneEndpoint {
  readonly authUrl: string;
  readonly region: string;
}

/** Name of the Secret with the cluster's clouds.yaml, read by CAPO. */
const CLOUDS_SECRET_SUFFIX = 'cloud-credentials';

/**
 * One workload cluster. OpenStack pieces that must outlive CAPI (credential, API floating IP,
 * server groups) plus, on the management cluster, the namespace, the credential Secret, the CAPI
 * objects and the add-ons as HelmChartProxies. Destroy removes the Cluster first and waits for CAPI
 * to finish before the credential goes. Needs the OpenStack, time and Kubernetes (pointed at the
 * management cluster) providers in its stack.
 *
 * Declares the outputs the operator commands read (`kubeconfig_secret`: where CAPI keeps the
 * cluster's kubeconfig; `namespace`, `api_endpoint`, …) and records them, with its environment and
 * cluster name, in the stack's JSON, so `capi-openstack kubeconfig <env> <cluster>` finds it in any
 * stack of any id.
 */
export class WorkloadCluster extends Construct {
  public readonly namespace: string;
  public readonly apiFloatingIp: string;
  /** Id of the cluster's own application credential. */
  public readonly applicationCredentialId: string;
  private readonly management: WorkloadManagement;

  constructor(scope: Construct, id: string, props: WorkloadClusterProps) {
    super(scope, id);
    guardWorkloadCluster(this, props);
    const { environment: env, cluster, management } = props;
    useEnvironmentStateBackend(this, env, 'WorkloadCluster');
    this.management = management;
    const spec = cluster.spec;
    // The external network: from the management cluster, or looked up like the management stack would.
    const external =
      management.kind === 'created'
        ? { id: management.cluster.externalNetworkId, name: management.cluster.externalNetworkName }
        : new DataOpenstackNetworkingNetworkV2(this, 'ExternalNetwork', {
            external: true,
            name: env.spec.network.externalNetworkId ? undefined : env.spec.network.externalNetworkName,
            networkId: env.spec.network.externalNetworkId,
          });
    // one token-scope read per stack: the lookups, the Keystone URL and the credential's roles share it
    const authScope = new DataOpenstackIdentityAuthScopeV3(this, 'AuthScope', { name: 'current' });
    const keystone = this.keystone(env, cluster, authScope);
    const cloud = new WorkloadCloudResources(this, 'Cloud', {
      namePrefix: cluster.resourceName,
      externalNetworkName: external.name,
      controlPlaneAntiAffinity: spec.controlPlane.antiAffinity,
      nodeGroupAntiAffinity: Object.fromEntries(spec.nodeGroups.map((g) => [g.name, g.antiAffinity])),
      credentialExpiresInDays: spec.applicationCredentialExpiresInDays,
      credentialRoles: spec.applicationCredentialRoles,
      credentialAccessRules: spec.applicationCredentialAccessRules,
      authScope,
    });
    this.apiFloatingIp = cloud.apiFloatingIp.address;
    this.applicationCredentialId = cloud.credential.credentialId;
    const inputs: WorkloadClusterInputs = {
      env,
      cluster,
      apiServerFloatingIp: cloud.apiFloatingIp.address,
      cloudsSecretName: `${cluster.name}-${CLOUDS_SECRET_SUFFIX}`,
      externalNetworkId: external.id,
      managementCidrForApiAccess: management.kind === 'created' ? `${management.cluster.floatingIp}/32` : management.egressCidr ?? '',
      serverGroupIds: { controlPlane: cloud.controlPlaneServerGroupId, nodeGroups: cloud.nodeGroupServerGroupIds },
      // the management stack's group exists only in its own project: CAPO finds it by name in the cluster's
      nodeSecurityGroupNames: management.kind === 'created' && env.managementCloud.name === env.cloud.name ? [management.cluster.nodeAccessSecurityGroupName] : [],
    };
    this.namespace = clusterNamespace(inputs);
    const namespace = new NamespaceV1(this, 'Namespace', {
      metadata: { name: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'capi-openstack-cdktf', 'capi-openstack-cdktf/environment': env.name } },
    });
    const cloudsSecret = this.cloudsSecret(inputs, namespace, cloud, keystone);
    const credentialDeps: ITerraformDependable[] = [namespace, cloudsSecret, cloud.credential.resource];
    const cloudConfig = this.cloudConfigSecret(inputs, namespace, cloud, keystone);
    if (cloudConfig) credentialDeps.push(cloudConfig);
    this.clusterObjects(inputs, namespace, credentialDeps);
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
      // the API floating IP goes after it too: it marks the cluster's name as taken in the project,
      // which the cleanup checks before it deletes anything (another environment's twin name)
      dependsOn: [cloud.credential.resource, cloudsSecret, cloud.apiFloatingIp],
    });
    new StackRecord(this, 'StackRecord', { environment: env, role: 'workload', cluster: cluster.name, outputs: this.outputs(env, cluster) });
  }

  /**
   * What operators read. In a stack of `WorkloadClusterStack` (construct id 'Default', which cdktf
   * leaves out of names) they are `kubeconfig_secret`, `namespace`, …; elsewhere cdktf derives
   * unique names from the construct path (two clusters in one stack do not collide), which the
   * stack record gives the commands.
   */
  private outputs(env: EnvironmentConfig, cluster: ResolvedCluster): Record<WorkloadOutput, TerraformOutput> {
    return {
      namespace: new TerraformOutput(this, 'namespace', { value: this.namespace, description: 'Namespace of the cluster objects on the management cluster' }),
      kubeconfig_secret: new TerraformOutput(this, 'kubeconfig_secret', {
        value: { namespace: this.namespace, name: `${cluster.name}-kubeconfig`, key: 'value' },
        description: `Secret on the management cluster holding the workload admin kubeconfig (written by CAPI once the control plane is up); get it with: capi-openstack kubeconfig ${env.name} ${cluster.name}`,
      }),
      api_endpoint: new TerraformOutput(this, 'api_endpoint', { value: `https://${this.apiFloatingIp}:6443` }),
      application_credential_id: new TerraformOutput(this, 'application_credential_id', { value: this.applicationCredentialId }),
      // a plan that changes it is an upgrade: the control plane first, the node groups after the ControlPlaneUpgrade gate
      kubernetes_version: new TerraformOutput(this, 'kubernetes_version', {
        value: cluster.kubernetesVersion,
        description: 'Kubernetes version of the control plane; the node groups follow once the ControlPlaneUpgrade gate has seen it on all control-plane machines',
      }),
    };
  }

  /** How the control-plane upgrade gate reaches the management API from the operator's machine. */
  private managementAccess(): ManagementAccess {
    const m = this.management;
    if (m.kind === 'created') {
      const c = m.cluster;
      return { kind: 'admin', server: c.apiEndpoint, caCertificatePem: c.caCertificatePem, clientCertificatePem: c.adminCertificatePem, clientKeyPem: c.adminKeyPem };
    }
    return { kind: 'kubeconfig', file: m.kubeconfigFile, context: m.context };
  }

  /** Keystone URL and region: from the environment, else from the operator's token (one read per stack). */
  private keystone(env: EnvironmentConfig, cluster: ResolvedCluster, authScope: DataOpenstackIdentityAuthScopeV3): KeystoneEndpoint {
    new MachineLookups(this, 'Machines', {
      flavorNames: [cluster.spec.controlPlane.flavor, ...cluster.spec.nodeGroups.map((g) => g.flavor)],
      imageName: cluster.nodeImage,
      authScope,
    });
    const { authUrl, region } = env.cloud;
    return { authUrl: authUrl ?? keystoneUrlFromCatalog(this, authScope, env.cloud.interface), region: region ?? authScope.region };
  }

  /** The clouds.yaml (+ CA) of the cluster's own credential, read by CAPO. */
  private cloudsSecret(inputs: WorkloadClusterInputs, namespace: NamespaceV1, cloud: WorkloadCloudResources, keystone: KeystoneEndpoint): SecretV1 {
    const env = inputs.env;
    return new SecretV1(this, 'CloudsSecret', {
      metadata: { name: inputs.cloudsSecretName, namespace: namespace.metadata.name, labels: { 'clusterctl.cluster.x-k8s.io/move': 'true' } },
      data: {
        'clouds.yaml': renderCapoCloudsYaml({
          cloudName: 'openstack',
          authUrl: keystone.authUrl,
          regionName: keystone.region,
          interface: env.cloud.interface,
          applicationCredentialId: cloud.credential.credentialId,
          applicationCredentialSecret: cloud.credential.secret,
          caCertPath: env.cloud.caCertificatePem ? '/etc/openstack/cacert.pem' : undefined,
        }),
        ...(env.cloud.caCertificatePem ? { cacert: env.cloud.caCertificatePem } : {}),
      },
    });
  }

  /** OCCM / Cinder CSI credential, delivered into the workload cluster by a ClusterResourceSet. */
  private cloudConfigSecret(inputs: WorkloadClusterInputs, namespace: NamespaceV1, cloud: WorkloadCloudResources, keystone: KeystoneEndpoint): SecretV1 | undefined {
    const secret = buildCloudConfigSecret({
      env: inputs.env,
      cluster: inputs.cluster,
      namespace: this.namespace,
      externalNetworkId: inputs.externalNetworkId,
      credential: { authUrl: keystone.authUrl, applicationCredentialId: cloud.credential.credentialId, applicationCredentialSecret: cloud.credential.secret, region: keystone.region },
    });
    if (!secret) return undefined;
    return new SecretV1(this, 'CloudConfigSecret', {
      metadata: { name: cloudConfigResourceSetName(inputs.cluster.name), namespace: namespace.metadata.name, labels: secret.metadata.labels as Record<string, string> },
      type: secret.type as string,
      data: secret.stringData as Record<string, string>,
    });
  }

  /** The chart mirror's CA, which the HelmChartProxies name (`chartRepository.caCertificateFile`). */
  private chartRepositoryCaSecret(inputs: WorkloadClusterInputs, namespace: NamespaceV1): SecretV1 | undefined {
    const secret = buildChartRepositoryCaSecret({ env: inputs.env, cluster: inputs.cluster, namespace: this.namespace });
    if (!secret) return undefined;
    return new SecretV1(this, 'ChartRepositoryCaSecret', {
      metadata: { name: secret.metadata.name, namespace: namespace.metadata.name, labels: secret.metadata.labels as Record<string, string> },
      type: secret.type as string,
      data: secret.stringData as Record<string, string>,
    });
  }

  /** The CAPI objects and add-ons, the Cluster last so destroy deletes it first. */
  private clusterObjects(inputs: WorkloadClusterInputs, namespace: NamespaceV1, credentialDeps: ITerraformDependable[]): void {
    const { env, cluster } = inputs;
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
    // A minor Kubernetes upgrade: the control plane first; the node groups once it runs the version
    // on all its machines (and never a jump of minors or a downgrade: refused at plan).
    const gate = new ControlPlaneUpgradeGate(this, 'ControlPlaneUpgrade', {
      namespace: this.namespace,
      name: set.controlPlane.metadata.name,
      kubernetesVersion: cluster.kubernetesVersion,
      management: this.managementAccess(),
      controlPlane: parts.byObjectKey.get(`KubeadmControlPlane/${set.controlPlane.metadata.name}`)!,
    });
    for (const g of Object.values(set.nodeGroups)) parts.addDependency(`MachineDeployment/${g.machineDeployment.metadata.name}`, gate.resource);
    const chartCa = this.chartRepositoryCaSecret(inputs, namespace);
    const addons = new KubeManifests(this, 'Addons', {
      objects: buildAddonObjects({ env, cluster, namespace: this.namespace }),
      dependsOn: chartCa ? [...credentialDeps, chartCa] : credentialDeps,
    });
    const controllerSettings = capoInstanceCreateTimeout(this, env, cluster);
    // The Cluster depends on everything else, so destroy deletes it first and waits (bounded)
    // until CAPI has removed machines, load balancers and networks; then the rest, then credentials.
    new KubeManifests(this, 'Cluster', {
      objects: [set.cluster],
      dependsOn: [...credentialDeps, ...templates.all, ...parts.all, ...addons.all, ...(controllerSettings ? [controllerSettings] : [])],
    });
  }
}
