import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { ComputeServergroupV2 } from '../gen/openstack/compute-servergroup-v2';
import { NetworkingFloatingipV2 } from '../gen/openstack/networking-floatingip-v2';
import { Offset } from '../gen/time/offset';
import { ApplicationCredential } from './application-credential';

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
   * Days until the per-cluster application credential expires; 0 = never.
   * @default 0
   */
  readonly credentialExpiresInDays?: number;
}

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
    new PropChecks('WorkloadCloudResources', this).present(props, 'namePrefix', 'externalNetworkName').integer('credentialExpiresInDays', props.credentialExpiresInDays, 0, 3650).done();
    requireProvider(this, 'WorkloadCloudResources', 'openstack');
    requireProvider(this, 'WorkloadCloudResources', 'time');
    const days = props.credentialExpiresInDays ?? 0;
    // time_offset is evaluated once at create time, so the expiry is stable across plans.
    const expiry = days > 0 ? new Offset(this, 'CredentialExpiry', { offsetDays: days }) : undefined;
    this.credential = new ApplicationCredential(this, 'Credential', {
      name: props.namePrefix,
      description: `Cluster API, OCCM and Cinder CSI of cluster ${props.namePrefix}`,
      expiresAt: expiry?.rfc3339,
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
