import { Construct } from 'constructs';
import { DataOpenstackNetworkingNetworkV2 } from '../gen/openstack/data-openstack-networking-network-v2';
import { NetworkingNetworkV2 } from '../gen/openstack/networking-network-v2';
import { NetworkingRouterInterfaceV2 } from '../gen/openstack/networking-router-interface-v2';
import { NetworkingRouterV2 } from '../gen/openstack/networking-router-v2';
import { NetworkingSubnetV2 } from '../gen/openstack/networking-subnet-v2';

export interface ManagementNetworkProps {
  /** Stem of the resource names. */
  readonly namePrefix: string;
  /** IPv4 CIDR of the management subnet, e.g. `10.0.0.0/24`. */
  readonly cidr: string;
  /** First address of the subnet's allocation pool. */
  readonly allocationPoolStart: string;
  /** Last address of the subnet's allocation pool. */
  readonly allocationPoolEnd: string;
  /**
   * DNS servers handed out on the subnet.
   * @default - no DNS servers
   */
  readonly dnsNameservers?: string[];
  /**
   * External network by name.
   * @default - the only network with router:external
   */
  readonly externalNetworkName?: string;
  /**
   * External network by id; wins over the name.
   * @default - looked up by name or auto-detected
   */
  readonly externalNetworkId?: string;
  /**
   * Router availability zone hint.
   * @default - no hint
   */
  readonly routerAvailabilityZoneHint?: string;
}

/** Network, subnet and router with an external gateway: the management VM's way out. */
export class ManagementNetwork extends Construct {
  public readonly network: NetworkingNetworkV2;
  public readonly subnet: NetworkingSubnetV2;
  public readonly router: NetworkingRouterV2;
  /** The subnet's router port: floating IPs on the subnet can only be associated once it exists. */
  public readonly routerInterface: NetworkingRouterInterfaceV2;
  public readonly externalNetwork: DataOpenstackNetworkingNetworkV2;

  constructor(scope: Construct, id: string, props: ManagementNetworkProps) {
    super(scope, id);
    // external=true makes the lookup fail unless it matches exactly one external network.
    this.externalNetwork = new DataOpenstackNetworkingNetworkV2(this, 'ExternalNetwork', {
      external: true,
      name: props.externalNetworkId ? undefined : props.externalNetworkName,
      networkId: props.externalNetworkId,
    });
    this.network = new NetworkingNetworkV2(this, 'Network', { name: `${props.namePrefix}-mgmt`, adminStateUp: true });
    this.subnet = new NetworkingSubnetV2(this, 'Subnet', {
      name: `${props.namePrefix}-mgmt`,
      networkId: this.network.id,
      cidr: props.cidr,
      ipVersion: 4,
      dnsNameservers: props.dnsNameservers,
      allocationPool: [{ start: props.allocationPoolStart, end: props.allocationPoolEnd }],
    });
    this.router = new NetworkingRouterV2(this, 'Router', {
      name: `${props.namePrefix}-mgmt`,
      externalNetworkId: this.externalNetwork.id,
      availabilityZoneHints: props.routerAvailabilityZoneHint ? [props.routerAvailabilityZoneHint] : undefined,
    });
    this.routerInterface = new NetworkingRouterInterfaceV2(this, 'RouterInterface', { routerId: this.router.id, subnetId: this.subnet.id });
  }
}
