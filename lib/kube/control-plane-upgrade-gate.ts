import { DataResource, ITerraformDependable, TerraformDataSource } from 'cdktf';
import { Construct } from 'constructs';
import { minorOf } from '../config/versions';
import { bundledScriptCommand } from '../terraform/bundled-script';
import { PropChecks } from '../terraform/prop-checks';
import { terraformLiteral } from '../terraform/terraform-literal';
import { adminAccessEnvironment, AdminAccess } from './admin-access-env';

/** How the gate's script reaches the management API: the admin certificate, or a kubeconfig file. */
export type ManagementAccess =
  | ({ readonly kind: 'admin' } & AdminAccess)
  /** `file` unset: the one KUBECONFIG names at apply time, else ~/.kube/config. */
  | { readonly kind: 'kubeconfig'; readonly file?: string; readonly context?: string };

export interface ControlPlaneUpgradeGateProps {
  /** Namespace and name of the KubeadmControlPlane on the management cluster. */
  readonly namespace: string;
  readonly name: string;
  /** The exact Kubernetes version the cluster is to run (e.g. `v1.37.2`). */
  readonly kubernetesVersion: string;
  readonly management: ManagementAccess;
  /** The KubeadmControlPlane's resource: the gate runs after it was updated. */
  readonly controlPlane: ITerraformDependable;
  /**
   * Bound of the wait for the control plane's roll-out.
   * @default 60
   */
  readonly timeoutMinutes?: number;
}

/** The KubeadmControlPlane API the gate reads (Cluster API v1.12 and v1.13 serve v1beta2). */
const KCP_API_VERSION = 'controlplane.cluster.x-k8s.io/v1beta2';

/**
 * Orders a minor Kubernetes upgrade: the control plane first, the node groups after it. At plan, it
 * reads the KubeadmControlPlane on the management cluster and refuses a downgrade or a step of more
 * than one minor (synth cannot know what runs); at apply, when the minor changes, its local-exec waits
 * until the control plane reports the new version on all its machines. Whatever depends on
 * `resource` (the MachineDeployments) is updated only then. Patch changes within a minor do not
 * re-run it, so they apply to control plane and node groups together.
 */
export class ControlPlaneUpgradeGate extends Construct {
  public readonly resource: DataResource;

  constructor(scope: Construct, id: string, props: ControlPlaneUpgradeGateProps) {
    super(scope, id);
    new PropChecks('ControlPlaneUpgradeGate', this).props(props);
    new PropChecks('ControlPlaneUpgradeGate', this)
      .present(props, 'namespace', 'name', 'kubernetesVersion', 'management', 'controlPlane')
      .integer('timeoutMinutes', props.timeoutMinutes, 1, 1440)
      .done();
    const [, minor, patch] = /^v1\.(\d+)\.(\d+)$/.exec(props.kubernetesVersion) ?? [];
    if (!minor) throw new Error(`${this.node.path}: expected an exact Kubernetes version like v1.37.2, found "${props.kubernetesVersion}"`);

    // Read at plan: it never depends on a resource of this stack (that would defer the read to
    // apply). A list, not the single-object `kubernetes_resource`: that one fails the plan ("produced
    // a null value") when the object does not exist yet, as on a cluster's first deploy.
    const deployed = new TerraformDataSource(this, 'Deployed', {
      terraformResourceType: 'kubernetes_resources',
      terraformGeneratorMetadata: { providerName: 'kubernetes' },
    });
    deployed.addOverride('api_version', KCP_API_VERSION);
    deployed.addOverride('kind', 'KubeadmControlPlane');
    deployed.addOverride('namespace', terraformLiteral(props.namespace));
    deployed.addOverride('field_selector', terraformLiteral(`metadata.name=${props.name}`));

    const object = `try(data.kubernetes_resources.${deployed.friendlyUniqueId}.objects[0], null)`;
    const guard = upgradeGuard(object, Number(minor), Number(patch), props.kubernetesVersion);
    const access: Record<string, string> =
      props.management.kind === 'admin'
        ? adminAccessEnvironment(props.management)
        : { ...(props.management.file ? { KUBE_CONFIG_FILE: terraformLiteral(props.management.file) } : {}), ...(props.management.context ? { KUBE_CONTEXT: terraformLiteral(props.management.context) } : {}) };
    this.resource = new DataResource(this, 'Wait', {
      // the plan names the phase: this resource is replaced when the minor changes (old → new)
      triggersReplace: { controlPlaneMinor: minorOf(props.kubernetesVersion)! },
      dependsOn: [props.controlPlane, deployed],
      provisioners: [
        {
          type: 'local-exec',
          command: bundledScriptCommand(this, 'wait-for-control-plane.js'),
          environment: {
            ...access,
            CONTROL_PLANE_NAMESPACE: props.namespace,
            CONTROL_PLANE_NAME: props.name,
            CONTROL_PLANE_VERSION: props.kubernetesVersion,
            READY_TIMEOUT_MINUTES: String(props.timeoutMinutes ?? 60),
          },
        },
      ],
    });
    this.resource.addOverride('lifecycle.precondition', [guard]);
  }
}

/**
 * The plan-time rule of `kubernetesUpgradeStep` (lib/config/kubernetes-upgrade) as a Terraform
 * precondition over `object`, an expression for the KubeadmControlPlane read from the management
 * cluster (null when there is none yet): passes when
 * nothing is deployed, within the same minor upward, or one minor up; the message names the path.
 */
export function upgradeGuard(object: string, minor: number, patch: number, target: string): { condition: string; error_message: string } {
  const from = `try(${object}.spec.version, "")`;
  const fromMinor = `try(tonumber(split(".", ${from})[1]), -1)`;
  const fromPatch = `try(tonumber(split(".", ${from})[2]), -1)`;
  const downgrade = `(${fromMinor} > ${minor} || (${fromMinor} == ${minor} && ${fromPatch} > ${patch}))`;
  const path = `try(join(", then ", [for m in range(${fromMinor} + 1, ${minor} + 1) : "v1.\${m}.x"]), "")`;
  return {
    condition: `\${${from} == "" || ${fromMinor} == ${minor - 1} || (${fromMinor} == ${minor} && ${fromPatch} <= ${patch})}`,
    error_message:
      `Kubernetes \${${from}} → ${target}: \${${downgrade} ? "a downgrade, which kubeadm does not support; keep \${${from}} (or a newer version) in kubernetesVersion" : ` +
      `"skips minors; upgrade one minor at a time: \${${path}}"}`,
  };
}
