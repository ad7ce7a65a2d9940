import { Fn, ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { NetworkingFloatingipAssociateV2 } from '../gen/openstack/networking-floatingip-associate-v2';
import { NetworkingFloatingipV2 } from '../gen/openstack/networking-floatingip-v2';
import { NetworkingPortV2 } from '../gen/openstack/networking-port-v2';

export interface ManagementEndpointProps {
  /** Name of the port; the floating IP's description is `<name> API`. */
  readonly name: string;
  /** Network of the port (the management network). */
  readonly networkId: string;
  /** Subnet the port takes its fixed address from. */
  readonly subnetId: string;
  /** Security groups of the port; they decide who may reach the API and SSH. */
  readonly securityGroupIds: string[];
  /** Name of the external network the floating IP comes from. */
  readonly externalNetworkName: string;
  /**
   * What makes the external network reachable from the subnet (the router interface); Neutron
   * refuses to associate a floating IP before it exists.
   * @default - nothing
   */
  readonly associateAfter?: ITerraformDependable[];
}

/**
 * The VM's port and floating IP, created before the VM so the address can go into the API
 * server certificate and the kubeconfig.
 */
export class ManagementEndpoint extends Construct {
  public readonly port: NetworkingPortV2;
  public readonly floatingIp: NetworkingFloatingipV2;
  public readonly association: NetworkingFloatingipAssociateV2;
  /** The public address of the management API. */
  public readonly address: string;
  /** The fixed address on the management subnet (assigned by Neutron: `all_fixed_ips`, since `fixed_ip.ip_address` stays null unless configured). */
  public readonly fixedAddress: string;

  constructor(scope: Construct, id: string, props: ManagementEndpointProps) {
    super(scope, id);
    new PropChecks('ManagementEndpoint', this).props(props);
    new PropChecks('ManagementEndpoint', this).present(props, 'name', 'networkId', 'subnetId', 'externalNetworkName').done();
    requireProvider(this, 'ManagementEndpoint', 'openstack');
    this.port = new NetworkingPortV2(this, 'Port', {
      name: props.name,
      networkId: props.networkId,
      adminStateUp: true,
      fixedIp: [{ subnetId: props.subnetId }],
      securityGroupIds: props.securityGroupIds,
    });
    this.floatingIp = new NetworkingFloatingipV2(this, 'FloatingIp', { pool: props.externalNetworkName, description: `${props.name} API` });
    this.association = new NetworkingFloatingipAssociateV2(this, 'Association', {
      floatingIp: this.floatingIp.address,
      portId: this.port.id,
      dependsOn: props.associateAfter,
    });
    this.address = this.floatingIp.address;
    this.fixedAddress = Fn.element(this.port.allFixedIps, 0);
  }
}
