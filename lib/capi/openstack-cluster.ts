/** OpenStackCluster (CAPO v1beta1): network, API load balancer, security groups of one cluster. */
import { apiOpenToAnywhere } from '../config/api-exposure';
import { API, KubeObject, commonLabels } from '../objects/kube-object';
import { WorkloadClusterInputs, clusterNamespace } from './inputs';
import { INSTANCE_CREATE_TIMEOUT_ANNOTATION } from './instance-create-timeout';

/** CAPO SecurityGroupRuleSpec. */
export interface SecurityGroupRuleSpec {
  readonly name: string;
  readonly description: string;
  readonly direction: 'ingress' | 'egress';
  readonly etherType: 'IPv4';
  readonly protocol: string;
  readonly portRangeMin?: number;
  readonly portRangeMax?: number;
  readonly remoteManagedGroups: readonly ('controlplane' | 'worker')[];
}

const between = ['controlplane', 'worker'] as const;

/**
 * Rules the CNI needs between nodes, added to every node. `allowAllInClusterTraffic` already allows
 * this traffic; the explicit rules keep the CNI working when that switch is turned off and document
 * what the CNI uses.
 */
export function cniSecurityGroupRules(cni: 'cilium' | 'calico'): SecurityGroupRuleSpec[] {
  const rule = (name: string, protocol: string, port?: number): SecurityGroupRuleSpec => ({
    name,
    description: `${name} (capi-openstack-cdktf)`,
    direction: 'ingress',
    etherType: 'IPv4',
    protocol,
    ...(port === undefined ? {} : { portRangeMin: port, portRangeMax: port }),
    remoteManagedGroups: between,
  });
  if (cni === 'cilium') {
    return [rule('Cilium VXLAN', 'udp', 8472), rule('Cilium health', 'tcp', 4240), rule('Hubble peer', 'tcp', 4244)];
  }
  return [rule('Calico BGP', 'tcp', 179), rule('Calico IP-in-IP', '4'), rule('Calico Typha', 'tcp', 5473)];
}

/**
 * Allowed CIDRs of the API load balancer (old `restrict_kubeapi`):
 * - `[]` or `["0.0.0.0/0"]`: open to everyone (no list at all — an empty list in CAPO means "open").
 * - a list: the list plus the management cluster's address.
 * - `["none"]`: internal only — the management cluster's address; CAPO itself adds the node subnet
 *   and the router's addresses whenever the list is non-empty.
 * The floating IP is kept in every case: the management cluster reaches the API through it.
 */
export function apiAllowedCidrs(inputs: WorkloadClusterInputs): string[] | undefined {
  const configured = inputs.cluster.spec.apiAllowedCidrs;
  if (apiOpenToAnywhere(configured)) return undefined;
  const cidrs = configured.filter((c) => c !== 'none');
  return [...new Set([...cidrs, inputs.managementCidrForApiAccess])];
}

/** The OpenStackCluster object. Its name equals the Cluster's. */
export function buildOpenStackCluster(inputs: WorkloadClusterInputs): KubeObject {
  const { env, cluster } = inputs;
  const spec = cluster.spec;
  const allowed = apiAllowedCidrs(inputs);
  return {
    apiVersion: API.infrastructure.version,
    kind: 'OpenStackCluster',
    metadata: {
      name: cluster.name,
      namespace: clusterNamespace(inputs),
      labels: commonLabels(cluster.name),
      annotations: { [INSTANCE_CREATE_TIMEOUT_ANNOTATION]: String(spec.instanceCreateTimeoutMinutes) },
    },
    spec: {
      identityRef: {
        type: 'Secret',
        name: inputs.cloudsSecretName,
        cloudName: inputs.cloudName ?? 'openstack',
        ...(env.cloud.region ? { region: env.cloud.region } : {}),
      },
      externalNetwork: { id: inputs.externalNetworkId },
      managedSubnets: [{ cidr: spec.network.nodeCidr, dnsNameservers: [...env.spec.network.dnsNameservers] }],
      // Terraform owns the floating IP (CAPO leaves a user-provided one alone on delete); the
      // endpoint is written explicitly so CAPI/CAPO do not change the spec after creation.
      apiServerFloatingIP: inputs.apiServerFloatingIp,
      controlPlaneEndpoint: { host: inputs.apiServerFloatingIp, port: 6443 },
      apiServerLoadBalancer: {
        enabled: true,
        ...(allowed ? { allowedCIDRs: allowed } : {}),
      },
      managedSecurityGroups: {
        allowAllInClusterTraffic: true,
        allNodesSecurityGroupRules: cniSecurityGroupRules(spec.addons.cni.type),
      },
      ...(cluster.failureDomains.length > 0 ? { controlPlaneAvailabilityZones: [...cluster.failureDomains] } : {}),
      // bastion: not set = no bastion (nothing needs SSH to deploy)
    },
  };
}
