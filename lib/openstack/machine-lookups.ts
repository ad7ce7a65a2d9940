import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { DataOpenstackComputeFlavorV2 } from '../gen/openstack/data-openstack-compute-flavor-v2';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';
import { keyByEach, lookUpImage } from './cloud-lookups';

export interface MachineLookupsProps {
  /** Flavor names the cluster's machines use (duplicates are fine). */
  readonly flavorNames: readonly string[];
  /** Image name the cluster's machines boot. */
  readonly imageName: string;
  /**
   * The token scope the lookups wait for (a stack that reads it anyway passes its own).
   * @default - read here
   */
  readonly authScope?: DataOpenstackIdentityAuthScopeV3;
}

/**
 * Reads the flavors and the image a workload cluster's machine templates name, so that a missing
 * one fails `cdktf plan` with its name instead of leaving machines stuck in Provisioning once
 * CAPO finds nothing (the templates themselves carry names, which CAPO resolves at reconcile time).
 */
export class MachineLookups extends Construct {
  constructor(scope: Construct, id: string, props: MachineLookupsProps) {
    super(scope, id);
    new PropChecks('MachineLookups', this).props(props);
    requireProvider(this, 'MachineLookups', 'openstack');
    const authScope = props.authScope ?? new DataOpenstackIdentityAuthScopeV3(this, 'AuthScope', { name: 'current' });
    const flavors = new DataOpenstackComputeFlavorV2(this, 'Flavor', { dependsOn: [authScope] });
    flavors.addOverride('name', '${each.value}');
    keyByEach(flavors, [...new Set(props.flavorNames)].sort());
    lookUpImage(this, props.imageName, authScope);
  }
}
