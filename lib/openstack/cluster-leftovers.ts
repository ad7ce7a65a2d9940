import { DataResource, ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { bundledScriptCommand } from '../terraform/bundled-script';
import { PropChecks } from '../terraform/prop-checks';
import { terraformLiteral } from '../terraform/terraform-literal';

/** Cinder CSI's default `--cluster`: it identifies no cluster. */
const CSI_DEFAULT_CLUSTER = 'kubernetes';

export interface ClusterLeftoversCleanupProps {
  /**
   * Name OCCM marks the cluster's load balancers, floating IPs and security groups with (its
   * `--cluster-name`), also Cinder CSI's `--cluster` unless `csiClusterName` is given.
   */
  readonly clusterName: string;
  /**
   * Cinder CSI's `--cluster` (the `cinder.csi.openstack.org/cluster` metadata of its volumes).
   * Cinder CSI's default `kubernetes` is refused: it identifies no cluster.
   * @default - clusterName
   */
  readonly csiClusterName?: string;
  /**
   * Entry of clouds.yaml the cleanup logs in with: the operator's, the one the stack's OpenStack
   * provider uses (it must be in the cluster's project). Found at destroy time the way the
   * provider finds it (OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml,
   * /etc/openstack/clouds.yaml; secure.yaml; OS_PASSWORD / OS_APPLICATION_CREDENTIAL_SECRET), so no
   * secret sits in the resource: Terraform prints a terraform_data's input in plans.
   */
  readonly cloud: string;
  /**
   * Read the entry from this file only (absolute, or relative to the stack directory).
   * @default - the OpenStack clients' search order
   */
  readonly cloudsFile?: string;
  /**
   * Region of the API endpoints.
   * @default - region_name of the clouds.yaml entry (none there and several in the catalog fails)
   */
  readonly region?: string;
  /**
   * Endpoint interface: `public`, `internal` or `admin`.
   * @default - interface of the clouds.yaml entry, else 'public'
   */
  readonly endpointInterface?: string;
  /**
   * PEM of the CA the OpenStack API certificates chain to.
   * @default - cacert of the clouds.yaml entry, else the system trust store
   */
  readonly caCertificatePem?: string;
  /**
   * Network of the cluster's machines (`capoNetworkName(namespace, cluster)` from lib/config/naming.ts). The
   * cleanup first waits until no server of the project has a port on it, so that nothing inside
   * the cluster can re-create what it deletes. Needed when the cleanup runs while CAPI deletes the
   * cluster (CAPO cannot delete that network while OCCM's load balancers sit on it).
   * @default - no wait
   */
  readonly machineNetworkName?: string;
  /**
   * Also delete Cinder CSI's volumes and snapshots (the data of the cluster's PersistentVolumes,
   * including those with reclaim policy Retain).
   * @default true
   */
  readonly deleteVolumes?: boolean;
  /**
   * Bound of the whole cleanup; the destroy fails with one line naming what is left.
   * @default 20
   */
  readonly timeoutMinutes?: number;
  /**
   * Resources that must outlive the cleanup (Terraform destroys them only after it), e.g. the
   * cluster's application credential.
   * @default []
   */
  readonly dependsOn?: ITerraformDependable[];
}

/** Keys of the terraform_data input, mapped to the script's environment variables. */
const ENVIRONMENT: ReadonlyArray<[key: string, variable: string]> = [
  ['cloud', 'CAPI_CLEANUP_CLOUD'],
  ['clouds_file', 'CAPI_CLEANUP_CLOUDS_FILE'],
  ['region', 'CAPI_CLEANUP_REGION'],
  ['interface', 'CAPI_CLEANUP_INTERFACE'],
  ['ca_pem', 'CAPI_CLEANUP_CA_PEM'],
  ['cluster_name', 'CAPI_CLEANUP_CLUSTER_NAME'],
  ['csi_cluster_name', 'CAPI_CLEANUP_CSI_CLUSTER_NAME'],
  ['machine_network', 'CAPI_CLEANUP_MACHINE_NETWORK'],
  ['volumes', 'CAPI_CLEANUP_VOLUMES'],
  ['timeout_minutes', 'CAPI_CLEANUP_TIMEOUT_MINUTES'],
];

/** The script in dist/bin/ the provisioner runs. */
export const CLEANUP_SCRIPT = 'cleanup-cluster-leftovers.js';

/**
 * Destroy-time cleanup of what a workload cluster's controllers created in OpenStack: OCCM's Octavia
 * load balancers (cascade) with their floating IPs and security groups, Cinder CSI's snapshots and
 * volumes; only what is provably the cluster's (see lib/runtime/cleanup/matchers.ts).
 *
 * A `terraform_data` resource whose `input` carries what the bundled script needs (no secret: the
 * script logs in with the clouds.yaml entry the provider uses) and whose `local-exec` provisioner
 * runs it `when = destroy`, on the operator's machine, with an environment read only from
 * `self.input` (all Terraform allows a destroy provisioner). Creating it does nothing. Place it in
 * the destroy order with `dependsOn` (what must outlive it) and by making what must go first
 * depend on `resource`.
 */
export class ClusterLeftoversCleanup extends Construct {
  public readonly resource: DataResource;

  constructor(scope: Construct, id: string, props: ClusterLeftoversCleanupProps) {
    super(scope, id);
    new PropChecks('ClusterLeftoversCleanup', this).props(props);
    new PropChecks('ClusterLeftoversCleanup', this)
      .present(props, 'clusterName', 'cloud')
      .integer('timeoutMinutes', props.timeoutMinutes, 1, 1440)
      // refused here rather than by the destroy-time script, the worst moment to learn it
      .not(props.csiClusterName !== undefined ? 'csiClusterName' : 'clusterName', props.deleteVolumes === false ? undefined : props.csiClusterName ?? props.clusterName, CSI_DEFAULT_CLUSTER, "Cinder CSI's default marks the volumes of every cluster that keeps it, so deleting them would delete other clusters' volumes; give Cinder CSI a cluster-specific --cluster, or set deleteVolumes: false")
      .done();
    const timeout = props.timeoutMinutes ?? 20;
    const input: Record<string, string> = {
      cloud: props.cloud,
      clouds_file: props.cloudsFile ?? '',
      region: props.region ?? '',
      interface: props.endpointInterface ?? '',
      ca_pem: props.caCertificatePem ?? '',
      cluster_name: props.clusterName,
      csi_cluster_name: props.csiClusterName ?? '',
      machine_network: props.machineNetworkName ?? '',
      volumes: props.deleteVolumes === false ? 'keep' : 'delete',
      timeout_minutes: String(timeout),
    };
    this.resource = new DataResource(this, 'Cleanup', {
      input: terraformLiteral(input),
      dependsOn: props.dependsOn,
      provisioners: [
        {
          type: 'local-exec',
          when: 'destroy',
          command: bundledScriptCommand(this, CLEANUP_SCRIPT),
          // nonsensitive(): Terraform hides the whole output of a provisioner whose configuration
          // holds a sensitive value (e.g. a CA read through a sensitive attribute); nothing here is secret.
          environment: Object.fromEntries(ENVIRONMENT.map(([key, variable]) => [variable, `\${nonsensitive(self.input.${key})}`])),
        },
      ],
    });
  }
}
