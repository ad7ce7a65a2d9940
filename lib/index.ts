/**
 * Public API of capi-openstack-cdktf: what a consumer composes in its own cdktf app. Everything
 * else under lib/ is internal and may change without notice.
 */

// The app and the stacks of an environment
export { EnvironmentsApp, type EnvironmentsAppProps } from './app/environments-app';
export { buildEnvironmentStacks, type EnvironmentStacks } from './stacks/environment-stacks';
export { ManagementStack, type ManagementStackProps } from './stacks/management-stack';
export { WorkloadClusterStack, type WorkloadClusterStackProps } from './stacks/workload-cluster-stack';
export { environmentOpenstackProvider } from './stacks/openstack-provider';

// The providers the constructs need (each construct's error names the ones missing from its stack)
export { OpenstackProvider, type OpenstackProviderConfig } from './gen/openstack/provider';
export { TlsProvider } from './gen/tls/provider';
export { TimeProvider } from './gen/time/provider';
export { KubernetesProvider, type KubernetesProviderConfig } from './gen/kubernetes/provider';
// Every generated resource and data source, by provider (the constructs expose some as public fields)
export { kubernetes, openstack, time, tls } from './gen';
export { DataOpenstackIdentityAuthScopeV3 } from './gen/openstack/data-openstack-identity-auth-scope-v3';

// Constructs for a consumer's own stacks
export { ManagementCluster, MANAGEMENT_API_PORT, type ManagementClusterProps } from './clusters/management-cluster';
export { type IManagementCluster } from './clusters/management-cluster-ref';
export { managementKubernetesConnection } from './clusters/management-connection';
export { WorkloadCluster, type WorkloadClusterProps, type WorkloadManagement } from './clusters/workload-cluster';

// Their parts
export { ApplicationCredential, type ApplicationCredentialAccessRule, type ApplicationCredentialProps } from './openstack/application-credential';
export { CloudLookups, type CloudLookupsProps } from './openstack/cloud-lookups';
export { ClusterLeftoversCleanup, type ClusterLeftoversCleanupProps } from './openstack/cluster-leftovers';
export { MachineLookups, type MachineLookupsProps } from './openstack/machine-lookups';
export { ManagementEndpoint, type ManagementEndpointProps } from './openstack/management-endpoint';
export { ManagementNetwork, type ManagementNetworkProps } from './openstack/management-network';
export { ManagementServer, type ManagementServerProps } from './openstack/management-server';
export { SecurityGroup, type SecurityGroupProps } from './openstack/security-group';
export { managementRules, nodeAccessRules, type ManagementRulesInput, type SecurityRule } from './openstack/security-rules';
export { WorkloadCloudResources, type AntiAffinity, type WorkloadCloudResourcesProps } from './openstack/workload-cloud-resources';
export { ClusterPki, type ClusterPkiProps } from './pki/cluster-pki';
export { KubeManifests, DEFAULT_DELETE_TIMEOUT_MINUTES, type KubeManifestsProps } from './kube/kube-manifests';
export { ReadinessGate, type ReadinessGateProps } from './kube/readiness-gate';
export { EnvironmentGuard } from './terraform/environment-guard';

// Environment files: loading, validation, naming, versions
export { loadEnvironmentFile, loadEnvironments, parseEnvironment } from './config/load';
export { environmentFromObject } from './config/from-object';
export { clusterNamed } from './config/cluster-named';
export { type EnvironmentConfig, type ResolvedCloud, type ResolvedCluster, type ResolvedRegistryMirror, type ResolvedChartRepository } from './config/resolve';
export { type EnvironmentInput, type EnvironmentSpec } from './config/environment-schema';
export {
  type AddonsInput,
  type ApplicationCredentialAccessRuleInput,
  type CertManagerInput,
  type ChartRepositoryInput,
  type CinderCsiInput,
  type ClusterctlInput,
  type CloudInput,
  type ClusterInput,
  type ClusterNetworkInput,
  type CniInput,
  type ControlPlaneInput,
  type ExistingManagementClusterInput,
  type FeatureFlagsInput,
  type FluxInput,
  type GatewayApiInput,
  type IngressNginxInput,
  type KindInput,
  type KubectlInput,
  type MachineHealthCheckInput,
  type ManagementInput,
  type MetricsServerInput,
  type NetworkInput,
  type NodeGroupInput,
  type OpenstackCloudControllerManagerInput,
  type ProviderManifestsInput,
  type ProviderManifestsVersionsInput,
  type ProxyInput,
  type RegistryMirrorInput,
  type Sha256Input,
  type StateBackendInput,
  type ToolsInput,
  type VersionsInput,
} from './config/environment-types';
export { type PinnedDownload } from './config/downloads';
export { type ManifestDownload, type ManifestSource } from './config/provider-manifests';
export { type ClusterSpec, type NodeGroupSpec } from './config/cluster-schema';
export { EnvironmentConfigError, type ConfigIssue } from './config/errors';
export { environmentJsonSchema } from './config/json-schema';
export { capoNetworkName, clusterResourceName, environmentResourcePrefix, managementStackName, workloadStackName } from './config/naming';
export { DEFAULT_CONTROLLER_VERSIONS, DEFAULT_KUBERNETES_VERSION, KUBERNETES_END_OF_LIFE, KUBERNETES_MAINTENANCE, KUBERNETES_TESTED_PATCHES } from './config/versions';

// Documented builders (pure functions over plain data)
export { renderManagementUserData, type ManagementUserDataProps, type ManagementVersions, type RegistryMirror } from './management-vm/management-user-data';
export { buildClusterObjectSet, buildClusterObjects, type ClusterObjects } from './capi/build';
export { type ServerGroupIds, type WorkloadClusterInputs } from './capi/inputs';
export { ADDON_CATALOGUE, type AddonChart, type AddonContext, type AddonId } from './addons/catalogue';
export { type CloudCredential } from './addons/cloud-config';
export { buildAddonObjects, buildChartRepositoryCaSecret, buildCloudConfigSecret, enabledAddons, type AddonInputs, type CloudConfigAddonInputs, type EnabledAddon } from './addons/helm-chart-proxies';
export { renderKubeconfig, type KubeconfigProps } from './kubeconfig/kubeconfig';
export { type KubeObject, type KubeObjectMeta } from './objects/kube-object';
