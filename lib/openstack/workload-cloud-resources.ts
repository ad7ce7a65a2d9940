import { Fn } from 'cdktf';
import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { ComputeServergroupV2 } from '../gen/openstack/compute-servergroup-v2';
import { NetworkingFloatingipV2 } from '../gen/openstack/networking-floatingip-v2';
import { Rotating } from '../gen/time/rotating';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';
import { credentialRotationDays } from '../config/credential-rotation';
import { defaultCredentialRoles } from './credential-roles';
import { ApplicationCredential, ApplicationCredentialAccessRule } from './application-credential';

export type AntiAffinity = 'hard' | 'soft' | 'none';

export interface WorkloadCloudResourcesProps {
  /** Stem of the resource names, e.g. `capi-prod-web`. */
  readonly namePrefix: string;
  /** External network the API floating IP comes from (by name). */
  readonly externalNetworkName: string;
  /** Anti-affinity of the control-plane server group. */
  readonly controlPlaneAntiAffinity: AntiAffinity;
  /** Anti-affinity per node group name. */
  readonly nodeGroupAntiAffinity: Readonly<Record<string, AntiAffinity>>;
  /**
   * Days until the per-cluster application credential expires; 0 = never. A plan or apply in the
   * renewal window (the last 30 days, the last half for short lives) replaces it.
   * @default 365
   */
  readonly credentialExpiresInDays?: number;
  /**
   * Roles of the per-cluster application credential.
   * @default - `member`, plus `load-balancer_member` when the operator's token has it
   */
  readonly credentialRoles?: string[];
  /**
   * Access rules of the per-cluster application credential.
   * @default - none
   */
  readonly credentialAccessRules?: ApplicationCredentialAccessRule[];
  /**
   * The operator's token scope, read for the default roles (share the stack's one read).
   * @default - a lookup of its own when `credentialRoles` is not given
   */
  readonly authScope?: DataOpenstackIdentityAuthScopeV3;
}

/** Expiry of a cluster credential when nothing else is said. */
export const DEFAULT_CREDENTIAL_EXPIRES_IN_DAYS = 365;

const POLICY: Record<Exclude<AntiAffinity, 'none'>, string> = { hard: 'anti-affinity', soft: 'soft-anti-affinity' };

/**
 * The OpenStack pieces of one workload cluster that must outlive CAPI's own reconciliation:
 * its restricted application credential, the API floating IP and its server groups.
 */
export class WorkloadCloudResources extends Construct {
  public readonly credential: ApplicationCredential;
  public readonly apiFloatingIp: NetworkingFloatingipV2;
  public readonly controlPlaneServerGroupId?: string;
  public readonly nodeGroupServerGroupIds: Record<string, string | undefined> = {};

  constructor(scope: Construct, id: string, props: WorkloadCloudResourcesProps) {
    super(scope, id);
    new PropChecks('WorkloadCloudResources', this).props(props);
    new PropChecks('WorkloadCloudResources', this).present(props, 'namePrefix', 'externalNetworkName').integer('credentialExpiresInDays', props.credentialExpiresInDays, 0, 3650).done();
    requireProvider(this, 'WorkloadCloudResources', 'openstack');
    requireProvider(this, 'WorkloadCloudResources', 'time');
    const days = props.credentialExpiresInDays ?? DEFAULT_CREDENTIAL_EXPIRES_IN_DAYS;
    const rotationDays = credentialRotationDays(days);
    // time_rotating keeps its timestamp across plans until the rotation day; a plan after it
    // replaces the timestamp, and so the credential that expires `days` after it.
    const rotation = rotationDays === undefined ? undefined : new Rotating(this, 'CredentialRotation', { rotationDays });
    const roles = props.credentialRoles ?? defaultCredentialRoles(props.authScope ?? new DataOpenstackIdentityAuthScopeV3(this, 'AuthScope', { name: 'current' }));
    this.credential = new ApplicationCredential(this, 'Credential', {
      name: props.namePrefix,
      description: `Cluster API, OCCM and Cinder CSI of cluster ${props.namePrefix}`,
      expiresAt: rotation ? Fn.timeadd(rotation.rfc3339, `${days * 24}h`) : undefined,
      roles,
      accessRules: props.credentialAccessRules,
    });
    this.apiFloatingIp = new NetworkingFloatingipV2(this, 'ApiFloatingIp', { pool: props.externalNetworkName, description: `${props.namePrefix} Kubernetes API` });
    const group = (gid: string, name: string, aa: AntiAffinity) =>
      aa === 'none' ? undefined : new ComputeServergroupV2(this, gid, { name, policies: [POLICY[aa]] }).id;
    this.controlPlaneServerGroupId = group('ControlPlaneServerGroup', `${props.namePrefix}-control-plane`, props.controlPlaneAntiAffinity);
    for (const [ng, aa] of Object.entries(props.nodeGroupAntiAffinity)) {
      this.nodeGroupServerGroupIds[ng] = group(`ServerGroup-${ng}`, `${props.namePrefix}-${ng}`, aa);
    }
  }
}
