/**
 * Public API of capi-openstack-cdktf: what a consumer composes in its own cdktf app. Everything
 * else under lib/ is internal and may change without notice.
 */

// The app and the stacks of an environment
export { EnvironmentsApp, environmentNamesFrom } from './app/environments-app';
export type { EnvironmentsAppProps } from './app/environments-app';
export { buildEnvironmentStacks } from './stacks/environment-stacks';
export type { EnvironmentStacks } from './stacks/environment-stacks';
export { ManagementStack } from './stacks/management-stack';
export type { ManagementStackProps } from './stacks/management-stack';
export { WorkloadClusterStack, existingKubeconfigPath } from './stacks/workload-cluster-stack';
export type { WorkloadClusterStackProps } from './stacks/workload-cluster-stack';
export { environmentOpenstackProvider } from './stacks/openstack-provider';

// Constructs for a consumer's own stacks
export { ManagementCluster, MANAGEMENT_API_PORT } from './clusters/management-cluster';
export type { ManagementClusterProps } from './clusters/management-cluster';
export type { IManagementCluster } from './clusters/management-cluster-ref';
export { WorkloadCluster, CLOUDS_SECRET_SUFFIX } from './clusters/workload-cluster';
export type { WorkloadClusterProps, WorkloadManagement } from './clusters/workload-cluster';

// Their parts
export { ApplicationCredential } from './openstack/application-credential';
export type { ApplicationCredentialProps } from './openstack/application-credential';
export { CloudLookups } from './openstack/cloud-lookups';
export type { CloudLookupsProps } from './openstack/cloud-lookups';
export { ClusterLeftoversCleanup } from './openstack/cluster-leftovers';
export type { ClusterLeftoversCleanupProps } from './openstack/cluster-leftovers';
export { keystoneUrlFromCatalog } from './openstack/keystone-endpoint';
export { MachineLookups } from './openstack/machine-lookups';
export type { MachineLookupsProps } from './openstack/machine-lookups';
export { ManagementEndpoint } from './openstack/management-endpoint';
export type { ManagementEndpointProps } from './openstack/management-endpoint';
export { ManagementNetwork } from './openstack/management-network';
export type { ManagementNetworkProps } from './openstack/management-network';
export { ManagementServer } from './openstack/management-server';
export type { ManagementServerProps } from './openstack/management-server';
export { SecurityGroup } from './openstack/security-group';
export type { SecurityGroupProps } from './openstack/security-group';
export { managementRules, nodeAccessRules } from './openstack/security-rules';
export type { ManagementRulesInput, SecurityRule } from './openstack/security-rules';
export { WorkloadCloudResources } from './openstack/workload-cloud-resources';
export type { AntiAffinity, WorkloadCloudResourcesProps } from './openstack/workload-cloud-resources';
export { ClusterPki } from './pki/cluster-pki';
export type { ClusterPkiProps } from './pki/cluster-pki';
export { KubeManifests, DEFAULT_DELETE_TIMEOUT_MINUTES } from './kube/kube-manifests';
export type { KubeManifestsProps } from './kube/kube-manifests';
export { ReadinessGate } from './kube/readiness-gate';
export type { ReadinessGateProps } from './kube/readiness-gate';
export { EnvironmentGuard } from './terraform/environment-guard';

// Environment files: loading, validation, naming, versions
export { loadEnvironmentFile, loadEnvironments, parseEnvironment } from './config/load';
export type { EnvironmentConfig, ResolvedCloud, ResolvedCluster, ResolvedRegistryMirror } from './config/resolve';
export type { EnvironmentInput, EnvironmentSpec } from './config/environment-schema';
export type { ClusterSpec, NodeGroupSpec } from './config/cluster-schema';
export { EnvironmentConfigError } from './config/errors';
export type { ConfigIssue } from './config/errors';
export { environmentJsonSchema } from './config/json-schema';
export { capoNetworkName, clusterResourceName, environmentResourcePrefix, managementStackName, workloadStackName } from './config/naming';
export { DEFAULT_CONTROLLER_VERSIONS, DEFAULT_KUBERNETES_VERSION, KUBERNETES_END_OF_LIFE, KUBERNETES_TESTED_PATCHES } from './config/versions';

// Documented builders (pure functions over plain data)
export { renderManagementUserData } from './management-vm/management-user-data';
export type { ManagementUserDataProps, ManagementVersions, RegistryMirror } from './management-vm/management-user-data';
export { renderCapoCloudsYaml } from './management-vm/clouds-yaml';
export type { CapoCloudsYamlProps } from './management-vm/clouds-yaml';
export { buildClusterObjectSet, buildClusterObjects } from './capi/build';
export type { ClusterObjects } from './capi/build';
export type { ServerGroupIds, WorkloadClusterInputs } from './capi/inputs';
export { ADDON_CATALOGUE } from './addons/catalogue';
export type { AddonChart, AddonId } from './addons/catalogue';
export { buildAddonObjects, buildCloudConfigSecret, enabledAddons } from './addons/helm-chart-proxies';
export type { AddonInputs, CloudConfigAddonInputs, EnabledAddon } from './addons/helm-chart-proxies';
export { renderKubeconfig } from './kubeconfig/kubeconfig';
export type { KubeconfigProps } from './kubeconfig/kubeconfig';
export type { KubeObject, KubeObjectMeta } from './objects/kube-object';
