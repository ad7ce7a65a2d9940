/** Schema of one workload cluster (`clusters.<name>` in an environment file). */
import { z } from 'zod';
import { chartVersion } from './chart-version';
import { cidr, cloudIdentifier, cloudObjectName, countInt, dnsLabel, metadata, positiveInt, version } from './fields';
import { labelKeyProblem, labelValueProblem } from './node-labels';
import { INGRESS_NGINX_DEFAULT } from './feature-flags';
import { GATEWAY_IMPLEMENTATIONS, GATEWAY_IMPLEMENTATION_DEFAULT, GatewayImplementation } from './gateway-implementation';
import { DEFAULT_KUBERNETES_VERSION } from './versions';

const VERSION_FIELD = () => chartVersion().optional().describe('Exact chart version (SemVer, optional leading "v"; no ranges). Default: the pinned version of the add-on catalogue.');

/** `true`/`false` or an object with `enabled`, `version` and the add-on's own fields; booleans are shorthand for `{ enabled: <bool> }`. */
function toggleOf<E extends z.ZodType<boolean | undefined>, T extends z.ZodRawShape>(enabled: E, shape: T) {
  const obj = z.strictObject({ enabled, version: VERSION_FIELD(), ...shape });
  return { obj, toggle: z.union([z.boolean(), obj]).transform((v) => (typeof v === 'boolean' ? obj.parse({ enabled: v }) : v)) };
}

/** An add-on on or off by default. */
function toggle<T extends z.ZodRawShape>(shape: T, enabledByDefault: boolean, description: string) {
  return toggleOf(z.boolean().default(enabledByDefault).describe('Install it. Disabling removes it from the cluster.'), shape).toggle.prefault(enabledByDefault).describe(description);
}

/**
 * A toggle whose default depends on a feature flag of the environment (feature-flags.ts): `enabled`
 * stays unset here when the file does not say, and resolve.ts applies the flag's default.
 */
function flaggedToggle<T extends z.ZodRawShape>(shape: T, enabledDescription: string, description: string) {
  const { obj, toggle: t } = toggleOf(z.boolean().optional().describe(enabledDescription), shape);
  // every field of the object is optional or defaulted: {} is a valid input
  return t.prefault({} as z.input<typeof obj>).describe(description);
}

export const antiAffinitySchema = z.enum(['hard', 'soft', 'none']);

export const controlPlaneSchema = z.strictObject({
  count: z
    .number()
    .int({ message: 'expected a whole number' })
    .refine((n) => n === 0 || n % 2 === 1, { message: 'expected an odd number (1, 3, 5) so etcd keeps quorum, or 0 to skip the cluster' })
    .refine((n) => n >= 0 && n <= 7, { message: 'expected 0 to 7' })
    .default(1)
    .meta({ enum: [0, 1, 3, 5, 7] })
    .describe('Control-plane nodes (old `controller_count`); 0 creates no cluster.'),
  flavor: cloudObjectName().default('SCS-2V-4-20s').describe('Flavor (old `controller_flavor`).'),
  metadata: metadata(),
  rootVolumeSizeGb: countInt(10000).default(0).describe('Root volume; 0 uses the flavor disk, or 25 GB when the flavor has no disk.'),
  antiAffinity: antiAffinitySchema.default('hard').describe('Server group policy (old `anti_affinity` + `soft_anti_affinity_controller`).'),
  etcdUnsafeFilesystem: z.boolean().default(false).describe('Mount etcd storage with nobarrier (old `etcd_unsafe_fs`); faster, unsafe on power loss.'),
});

export const nodeGroupSchema = z.strictObject({
  name: dnsLabel(20).describe('Name of the MachineDeployment suffix.'),
  count: countInt(1000).default(3).describe('Machines (old `worker_count`).'),
  flavor: cloudObjectName().default('SCS-2V-4-20s').describe('Flavor (old `worker_flavor`).'),
  metadata: metadata(),
  rootVolumeSizeGb: countInt(10000).default(0).describe('Root volume; 0 uses the flavor disk, or 25 GB when the flavor has no disk.'),
  failureDomain: cloudIdentifier().optional().describe('Availability zone. Default: the first failure domain of the cluster.'),
  antiAffinity: antiAffinitySchema.default('soft').describe('Server group policy of this group.'),
  labels: z
    .record(z.string(), z.string())
    .superRefine((labels, ctx) => {
      for (const [key, value] of Object.entries(labels)) {
        const keyProblem = labelKeyProblem(key);
        if (keyProblem) ctx.addIssue({ code: 'custom', path: [key], message: keyProblem, input: key });
        const valueProblem = labelValueProblem(value);
        if (valueProblem) ctx.addIssue({ code: 'custom', path: [key], message: valueProblem, input: value });
      }
    })
    .default({})
    .describe('Node labels, as Kubernetes accepts them; kubernetes.io/ and k8s.io/ keys only where a kubelet may set them (node.kubernetes.io/, kubelet.kubernetes.io/) or through Cluster API (node-role.kubernetes.io/<role> except control-plane, node-restriction.kubernetes.io/).'),
});

export const clusterNetworkSchema = z.strictObject({
  nodeCidr: cidr().default('10.8.0.0/20').describe('Node subnet (old `node_cidr`).'),
  podCidr: cidr().default('192.168.0.0/16').describe('Pod network (old `pod_cidr`).'),
  serviceCidr: cidr().default('10.96.0.0/12').describe('Service network (old `service_cidr`).'),
});

export const machineHealthCheckSchema = z.strictObject({
  enabled: z.boolean().default(true),
  unhealthyAfterMinutes: positiveInt(1440).default(5).describe('Node NotReady/Unknown this long → remediate.'),
  nodeStartupTimeoutMinutes: positiveInt(1440).default(20).describe('A machine without a node after this long → remediate.'),
  maxUnhealthyPercent: z
    .number()
    .int({ message: 'expected a whole number' })
    .min(0, { message: 'expected a percentage from 0 to 100' })
    .max(100, { message: 'expected a percentage from 0 to 100' })
    .default(40).describe('Stop remediating when more of the checked machines are unhealthy: this share of the control plane\'s machines, or of all node groups\' together, rounded down but at least one (a dead machine of a group of one or two is replaced); 0 never remediates.'),
});

export const addonsSchema = z.strictObject({
  cni: z
    .strictObject({
      type: z.enum(['cilium', 'calico']).default('cilium').describe('CNI (old `use_cilium`).'),
      version: chartVersion().optional().describe('Exact chart version (SemVer, optional leading "v"; no ranges). Default: pinned.'),
    })
    .prefault({}),
  openstackCloudControllerManager: toggle({}, true, 'OpenStack cloud controller manager (old `deploy_occm`).'),
  cinderCsi: toggle(
    {
      snapshotControllerVersion: chartVersion().optional().describe('Exact snapshot controller chart version (SemVer, optional leading "v"; no ranges). Default: pinned.'),
      defaultStorageClass: z.boolean().default(true).describe('Make the Cinder StorageClass the default.'),
    },
    true,
    'Cinder CSI, snapshot controller and StorageClass (old `deploy_cindercsi`).',
  ),
  metricsServer: toggle({}, true, 'metrics-server (old `deploy_metrics`).'),
  ingressNginx: flaggedToggle(
    { proxyProtocol: z.boolean().default(true).describe('PROXY protocol + health monitor on the load balancer (old `NGINX_INGRESS_PROXY`); ignored with OVN.') },
    `Install it. Disabling removes it from the cluster. ${INGRESS_NGINX_DEFAULT}`,
    `ingress-nginx (old \`deploy_nginx_ingress\`): retired upstream in March 2026 (no releases or security fixes; \`validate\` warns wherever it is on), move to Gateway API (docs/addons.md). ${INGRESS_NGINX_DEFAULT}`,
  ),
  certManager: toggle({}, false, 'cert-manager (old `deploy_cert_manager`).'),
  flux: toggle({}, false, 'Flux (old `deploy_flux`).'),
  gatewayApi: toggle(
    {
      implementation: z
        .enum(GATEWAY_IMPLEMENTATIONS as [GatewayImplementation, ...GatewayImplementation[]])
        .optional()
        .describe(
          `Which implementation serves the Gateways: \`cilium\` (Cilium's gateway; needs cni.type cilium) or \`traefik\` (Traefik, with any CNI: GatewayClass \`traefik\` and the Gateway \`traefik-gateway\` in namespace \`traefik\`, an HTTP listener that takes routes from every namespace, behind an Octavia load balancer). ${GATEWAY_IMPLEMENTATION_DEFAULT}`,
        ),
      traefikVersion: chartVersion().optional().describe('Exact Traefik chart version (SemVer, optional leading "v"; no ranges), with implementation traefik. Default: the pinned version of the add-on catalogue.'),
      crds: z
        .boolean()
        .default(true)
        .describe(
          'Install the Gateway API CRDs with their Helm chart. The pinned chart cannot be installed (its Helm release, 1.17 MB, exceeds the 1 MiB limit of the Secret Helm keeps it in), so `validate` refuses true unless `version` names a chart of your mirror that fits: install the CRDs yourself (docs/addons.md) and set false.',
        ),
    },
    false,
    'Gateway API: an implementation (Cilium\'s gateway or Traefik, see `implementation`) and the CRDs (old `deploy_gateway_api`, which had Cilium\'s only).',
  ),
});

export const clusterSchema = z.strictObject({
  kubernetesVersion: version(true).default(DEFAULT_KUBERNETES_VERSION).describe('Kubernetes version; `.x` resolves to the tested patch.'),
  nodeImage: cloudObjectName().optional().describe('Glance image of the nodes. Default: ubuntu-capi-image-<resolved version>.'),
  controlPlane: controlPlaneSchema.prefault({}),
  nodeGroups: z
    .array(nodeGroupSchema)
    .default([{ name: 'md-0', count: 3, flavor: 'SCS-2V-4-20s', metadata: {}, rootVolumeSizeGb: 0, antiAffinity: 'soft', labels: {} }])
    .describe('Worker groups, one MachineDeployment each.'),
  failureDomains: z.array(cloudIdentifier()).default([]).describe('Availability zones for control-plane nodes. Default: the environment availabilityZone, if set.'),
  network: clusterNetworkSchema.prefault({}),
  apiAllowedCidrs: z.array(z.union([cidr(), z.literal('none')])).default([]).describe('CIDRs allowed to reach the API load balancer (old `restrict_kubeapi`): ["none"] = internal only, ["0.0.0.0/0"] = everyone on purpose, [] = everyone (the default, warned at validate, footprint and synth). The management cluster is always allowed.'),
  ovnLoadBalancer: z.union([z.boolean(), z.literal('auto')]).default(false).describe('Use the OVN Octavia provider (old `use_ovn_lb_provider`).'),
  loadBalancerProvider: cloudIdentifier()
    .optional()
    .describe(
      "Octavia provider of the load balancers OCCM makes for Services of type LoadBalancer (cloud.conf lb-provider; `openstack loadbalancer provider list` shows the cloud's): name it when the cloud has no amphora provider; ovn means ovnLoadBalancer: true. Default: amphora (OCCM's own), ovn with ovnLoadBalancer.",
    ),
  instanceCreateTimeoutMinutes: positiveInt(120).default(5).describe('CAPO server create timeout (old `capo_instance_create_timeout`). CAPO reads one value for all clusters: its controller gets the largest value of the environment.'),
  applicationCredentialExpiresInDays: countInt(3650)
    .default(365)
    .describe('Expiry of the per-cluster application credential; 0 = never. Rotation is a re-apply: a plan or apply in the last 30 days before the expiry (the last half for short ones) replaces it.'),
  applicationCredentialRoles: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,255}$/, { message: 'expected a Keystone role name (letters, digits, _ . -)' }),
    )
    .min(1, { message: 'expected at least one role' })
    .optional()
    .describe('Roles of the per-cluster application credential (CAPO, OCCM, Cinder CSI). Default: member, plus load-balancer_member when the deploying token has it (Octavia\'s default policy requires it for the API load balancer).'),
  applicationCredentialAccessRules: z
    .array(
      z.strictObject({
        service: z
          .string()
          .regex(/^[a-z][a-z0-9-]{0,63}$/, { message: 'expected a service type like compute, network or load-balancer' })
          .describe('Service type in the catalog, e.g. compute.'),
        method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).describe('HTTP method.'),
        path: z
          .string()
          .regex(/^\/[A-Za-z0-9_.{}*\/-]{0,254}$/, { message: 'expected an API path like /v2.1/servers/* (letters, digits, _ . - { } * /)' })
          .describe('API path; * matches one segment, ** any number.'),
      }),
    )
    .min(1, { message: 'expected at least one rule (leave the field out for no access rules)' })
    .optional()
    .describe('Access rules of the per-cluster application credential, where the cloud supports them (Keystone 3.13+): only these API calls are allowed. Opt-in: the controllers call a wide, version-dependent set of paths; list every one they need. Default: none (the roles alone decide).'),
  deleteVolumesOnDestroy: z
    .boolean()
    .default(true)
    .describe('On destroy, also delete the Cinder volumes and snapshots Cinder CSI created for the cluster (the data of its PersistentVolumes, Retain ones included). Load balancers OCCM created are always deleted.'),
  blockMetadataService: z
    .boolean()
    .default(true)
    .describe('Keep pods and non-root processes on every node away from the OpenStack metadata service (169.254.169.254, fe80::a9fe:a9fe), whose user data carries the cluster\'s CA and service-account keys on control-plane nodes; root on the node keeps access. Set up before kubelet starts, kept across reboots (docs/security.md).'),
  machineHealthCheck: machineHealthCheckSchema.prefault({}),
  addons: addonsSchema.prefault({}),
});

/** A cluster as the schema parses it: a default that follows a feature flag is still unset. */
export type ClusterFields = z.output<typeof clusterSchema>;
type AddonsFields = ClusterFields['addons'];
/** A cluster with every default applied, the feature flags' included (resolve.ts). */
export type ClusterSpec = Omit<ClusterFields, 'addons'> & {
  readonly addons: Omit<AddonsFields, 'ingressNginx'> & { readonly ingressNginx: AddonsFields['ingressNginx'] & { readonly enabled: boolean } };
};
export type NodeGroupSpec = z.output<typeof nodeGroupSchema>;
