import { Fn, Op, TerraformDataSource, Token } from 'cdktf';
import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { DataOpenstackComputeFlavorV2 } from '../gen/openstack/data-openstack-compute-flavor-v2';
import { DataOpenstackIdentityAuthScopeV3 } from '../gen/openstack/data-openstack-identity-auth-scope-v3';
import { DataOpenstackImagesImageV2 } from '../gen/openstack/data-openstack-images-image-v2';
import { DataOpenstackNetworkingNetworkV2 } from '../gen/openstack/data-openstack-networking-network-v2';
import { terraformLiteral } from '../terraform/terraform-literal';

export interface CloudLookupsProps {
  /** Flavor name to look up. */
  readonly flavorName: string;
  /** Image name to look up; the most recent image of that name wins. */
  readonly imageName: string;
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
}

/**
 * The existing cloud objects a stack builds on (credentials, flavor, image, external network),
 * read at plan time so a typo fails `cdktf plan` before anything is created, with a message that
 * names what is missing:
 *
 * - Authentication is checked once, first: every other lookup depends on it, so wrong credentials
 *   give one error instead of one per lookup.
 * - The image is listed (a list may be empty) and a precondition names the image and the project
 *   when nothing matches.
 * - The provider has no list lookup for flavors and networks; their lookups are keyed by the
 *   searched name (`for_each`), so the provider's "no results" error carries the name in the
 *   address, e.g. `data.openstack_compute_flavor_v2.Flavor["SCS-2V-4"]`.
 */
export class CloudLookups extends Construct {
  /** The token's scope: user, project, region, service catalog. */
  public readonly authScope: DataOpenstackIdentityAuthScopeV3;
  public readonly flavorId: string;
  public readonly imageId: string;
  public readonly externalNetworkId: string;
  public readonly externalNetworkName: string;

  constructor(scope: Construct, id: string, props: CloudLookupsProps) {
    super(scope, id);
    new PropChecks('CloudLookups', this).props(props);
    new PropChecks('CloudLookups', this).present(props, 'flavorName', 'imageName').done();
    requireProvider(this, 'CloudLookups', 'openstack');
    this.authScope = new DataOpenstackIdentityAuthScopeV3(this, 'AuthScope', { name: 'current' });
    const afterAuth = [this.authScope];

    const flavor = new DataOpenstackComputeFlavorV2(this, 'Flavor', { name: terraformLiteral(props.flavorName), dependsOn: afterAuth });
    keyByEach(flavor, [props.flavorName]);
    this.flavorId = attributeOfOnly(flavor, 'id');

    this.imageId = lookUpImage(this, props.imageName, this.authScope).id;

    const networkKey = props.externalNetworkId ?? props.externalNetworkName ?? 'router:external';
    const network = new DataOpenstackNetworkingNetworkV2(this, 'ExternalNetwork', {
      // external=true makes the lookup fail unless it matches exactly one external network.
      external: true,
      name: props.externalNetworkId ? undefined : terraformLiteral(props.externalNetworkName),
      networkId: terraformLiteral(props.externalNetworkId),
      dependsOn: afterAuth,
    });
    keyByEach(network, [networkKey]);
    this.externalNetworkId = attributeOfOnly(network, 'id');
    this.externalNetworkName = attributeOfOnly(network, 'name');
  }
}

/**
 * The most recent image named `name` (ids `ImageCandidates` and `Image` under `scope`), with a
 * precondition that names the image and the project when none is visible.
 */
export function lookUpImage(scope: Construct, name: string, authScope: DataOpenstackIdentityAuthScopeV3): DataOpenstackImagesImageV2 {
  const candidates = new TerraformDataSource(scope, 'ImageCandidates', {
    terraformResourceType: 'openstack_images_image_ids_v2',
    terraformGeneratorMetadata: { providerName: 'openstack' },
    dependsOn: [authScope],
  });
  candidates.addOverride('name', terraformLiteral(name));
  return new DataOpenstackImagesImageV2(scope, 'Image', {
    name: terraformLiteral(name),
    mostRecent: true,
    lifecycle: {
      precondition: [
        {
          condition: Op.gte(Fn.lengthOf(candidates.getListAttribute('ids')), 1),
          errorMessage: terraformLiteral(`Image "${name}" not found: no image of that name is visible to project `) + `"${authScope.projectName}" (openstack image list); check the image name in the environment file.`,
        },
      ],
    },
  });
}

/** One instance per searched value, keyed by it, so errors about a lookup name it. */
export function keyByEach(dataSource: TerraformDataSource, keys: readonly string[]): void {
  dataSource.addOverride('for_each', Object.fromEntries(keys.map((k) => [terraformLiteral(k), terraformLiteral(k)])));
}

/** `one(values(<data source>)).<attribute>`: the attribute of the single keyed instance. */
function attributeOfOnly(dataSource: TerraformDataSource, attribute: string): string {
  return Token.asString(Fn.lookupNested(Fn.one(Fn.values(Token.asAny(dataSource.fqn))), [attribute]));
}
