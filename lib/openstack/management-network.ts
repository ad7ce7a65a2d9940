import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { NetworkingNetworkV2 } from '../gen/openstack/networking-network-v2';
import { NetworkingRouterInterfaceV2 } from '../gen/openstack/networking-router-interface-v2';
import { NetworkingRouterV2 } from '../gen/openstack/networking-router-v2';
import { NetworkingSubnetV2 } from '../gen/openstack/networking-subnet-v2';
import { terraformLiteral } from '../terraform/terraform-literal';

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
  /** Id of the external network the router's gateway is on (see `CloudLookups`). */
  readonly externalNetworkId: string;
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

  constructor(scope: Construct, id: string, props: ManagementNetworkProps) {
    super(scope, id);
    new PropChecks('ManagementNetwork', this).props(props);
    new PropChecks('ManagementNetwork', this)
      .present(props, 'namePrefix', 'cidr')
      .cidr('cidr', props.cidr)
      .addressIn('allocationPoolStart', props.allocationPoolStart, props.cidr)
      .addressIn('allocationPoolEnd', props.allocationPoolEnd, props.cidr)
      .ordered('allocationPoolStart', props.allocationPoolStart, 'allocationPoolEnd', props.allocationPoolEnd)
      .addresses('dnsNameservers', props.dnsNameservers)
      // without it the router silently gets no gateway and the VM no way out
      .required('externalNetworkId', props.externalNetworkId)
      .done();
    requireProvider(this, 'ManagementNetwork', 'openstack');
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
      externalNetworkId: props.externalNetworkId,
      availabilityZoneHints: props.routerAvailabilityZoneHint ? [terraformLiteral(props.routerAvailabilityZoneHint)] : undefined,
    });
    this.routerInterface = new NetworkingRouterInterfaceV2(this, 'RouterInterface', { routerId: this.router.id, subnetId: this.subnet.id });
  }
}
