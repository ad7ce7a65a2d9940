import { Construct } from 'constructs';
import { NetworkingFloatingipAssociateV2 } from '../gen/openstack/networking-floatingip-associate-v2';
import { NetworkingFloatingipV2 } from '../gen/openstack/networking-floatingip-v2';
import { NetworkingPortV2 } from '../gen/openstack/networking-port-v2';

export interface ManagementEndpointProps {
  readonly name: string;
  readonly networkId: string;
  readonly subnetId: string;
  readonly securityGroupIds: string[];
  /** Name of the external network the floating IP comes from. */
  readonly externalNetworkName: string;
}

/**
 * The VM's port and floating IP, created before the VM so the address can go into the API
 * server certificate and the kubeconfig.
 */
export class ManagementEndpoint extends Construct {
  public readonly port: NetworkingPortV2;
  public readonly floatingIp: NetworkingFloatingipV2;
  /** The public address of the management API. */
  public readonly address: string;
  /** The fixed address on the management subnet. */
  public readonly fixedAddress: string;

  constructor(scope: Construct, id: string, props: ManagementEndpointProps) {
    super(scope, id);
    this.port = new NetworkingPortV2(this, 'Port', {
      name: props.name,
      networkId: props.networkId,
      adminStateUp: true,
      fixedIp: [{ subnetId: props.subnetId }],
      securityGroupIds: props.securityGroupIds,
    });
    this.floatingIp = new NetworkingFloatingipV2(this, 'FloatingIp', { pool: props.externalNetworkName, description: `${props.name} API` });
    new NetworkingFloatingipAssociateV2(this, 'Association', { floatingIp: this.floatingIp.address, portId: this.port.id });
    this.address = this.floatingIp.address;
    this.fixedAddress = this.port.fixedIp.get(0).ipAddress;
  }
}
