import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { ComputeInstanceV2 } from '../gen/openstack/compute-instance-v2';
import { ComputeKeypairV2 } from '../gen/openstack/compute-keypair-v2';
import { BlockstorageVolumeV3 } from '../gen/openstack/blockstorage-volume-v3';
import { terraformLiteral } from '../terraform/terraform-literal';

export interface ManagementServerProps {
  /** Name of the server (and of its key pair, when `sshPublicKey` is given). */
  readonly name: string;
  /** Port the server is attached to (see `ManagementEndpoint`); its security groups apply. */
  readonly portId: string;
  /** Flavor name, looked up at plan time. */
  /** Flavor id (see `CloudLookups`). */
  readonly flavorId: string;
  /** Image id (see `CloudLookups`). */
  readonly imageId: string;
  /** cloud-init user data. */
  readonly userData: string;
  /**
   * Boot from a volume of this size (a named volume created from the image beside the server, deleted after it); 0 boots from the flavor disk.
   * @default 30
   */
  readonly bootVolumeSizeGb?: number;
  /**
   * Volume type of the boot volume (ignored when `bootVolumeSizeGb` is 0).
   * @default - the cloud's default volume type
   */
  readonly bootVolumeType?: string;
  /**
   * Compute availability zone of the server.
   * @default - the cloud's default zone
   */
  readonly availabilityZone?: string;
  /**
   * Server metadata (key: value).
   * @default {}
   */
  readonly metadata?: Record<string, string>;
  /**
   * OpenSSH public key for break-glass access. No private key is generated.
   * @default - no key pair
   */
  readonly sshPublicKey?: string;
}

/**
 * Server arguments that take effect only when the server is created (each forces a new server in
 * the OpenStack provider): ignored in plans, so a change never replaces the management VM.
 */
export const MANAGEMENT_SERVER_FIRST_BOOT_ATTRIBUTES = ['user_data', 'image_id', 'image_name', 'block_device', 'key_pair', 'availability_zone'] as const;

/** Boot volume arguments that take effect only when the volume is created. */
export const MANAGEMENT_BOOT_VOLUME_FIRST_BOOT_ATTRIBUTES = ['image_id', 'size', 'volume_type', 'availability_zone'] as const;

/** The management VM, on its port, booted from the image (through a boot volume by default). */
export class ManagementServer extends Construct {
  public readonly instance: ComputeInstanceV2;
  /** The boot volume (`<name>-boot`), undefined when booting from the flavor disk. */
  public readonly bootVolume?: BlockstorageVolumeV3;

  constructor(scope: Construct, id: string, props: ManagementServerProps) {
    super(scope, id);
    new PropChecks('ManagementServer', this).props(props);
    new PropChecks('ManagementServer', this)
      .present(props, 'name', 'portId', 'flavorId', 'imageId')
      .integer('bootVolumeSizeGb', props.bootVolumeSizeGb, 0, 10000)
      .done();
    requireProvider(this, 'ManagementServer', 'openstack');
    const keyPair = props.sshPublicKey ? new ComputeKeypairV2(this, 'KeyPair', { name: props.name, publicKey: terraformLiteral(props.sshPublicKey) }) : undefined;
    const volumeSize = props.bootVolumeSizeGb ?? 30;
    // Its own resource: Cinder copies the image while the network is built (Terraform runs them in
    // parallel), the server then only attaches it, and the volume has a name a leftover hunt can find.
    this.bootVolume =
      volumeSize > 0
        ? new BlockstorageVolumeV3(this, 'BootVolume', {
            name: `${props.name}-boot`,
            size: volumeSize,
            imageId: props.imageId,
            volumeType: terraformLiteral(props.bootVolumeType),
            availabilityZone: terraformLiteral(props.availabilityZone),
            // A newer image of the same name, another type or zone applies to a new VM only.
            lifecycle: { ignoreChanges: [...MANAGEMENT_BOOT_VOLUME_FIRST_BOOT_ATTRIBUTES] },
          })
        : undefined;
    this.instance = new ComputeInstanceV2(this, 'Instance', {
      name: props.name,
      flavorId: props.flavorId,
      imageId: volumeSize > 0 ? undefined : props.imageId,
      keyPair: keyPair?.name,
      userData: props.userData,
      availabilityZone: terraformLiteral(props.availabilityZone),
      // operator text: literal for Terraform, whatever it holds
      metadata: terraformLiteral(props.metadata),
      network: [{ port: props.portId }],
      // Terraform deletes the volume itself, after the server
      blockDevice: this.bootVolume ? [{ uuid: this.bootVolume.id, sourceType: 'volume', destinationType: 'volume', bootIndex: 0, deleteOnTermination: false }] : undefined,
      // The VM holds the only copy of every cluster's Cluster API state: what it reads only at first
      // boot must not replace it through drift (replacing it is a deliberate `-replace`).
      lifecycle: { ignoreChanges: [...MANAGEMENT_SERVER_FIRST_BOOT_ATTRIBUTES] },
    });
  }
}
