import { DataResource, Fn, Op, TerraformStack, Token } from 'cdktf';
import { Construct } from 'constructs';
import { FirstBootSetting, firstBootChangeMessage, firstBootSettingKey } from '../config/first-boot-settings';
import { terraformLiteral } from '../terraform/terraform-literal';

export interface FirstBootRecordProps {
  /** The settings the VM booted with (see `firstBootSettings`). */
  readonly settings: readonly FirstBootSetting[];
  /** Id of the management VM: the record is made anew with it, and only with it. */
  readonly instanceId: string;
  /** Name the image is looked up by. */
  readonly imageName: string;
  /** Id of the newest image of that name, as looked up at plan time. */
  readonly currentImageId: string;
  /** Environment name, for the messages. */
  readonly environment: string;
}

/**
 * Remembers what the management VM booted with (a `terraform_data` whose input Terraform keeps
 * unchanged until the VM itself is replaced) and warns in every plan whose settings differ: a
 * Terraform `check` block, one assertion per setting, so the plan names what changed and that it
 * applies to a new VM only, instead of silently replacing the VM.
 */
export class FirstBootRecord extends Construct {
  public readonly resource: DataResource;

  constructor(scope: Construct, id: string, props: FirstBootRecordProps) {
    super(scope, id);
    const input: Record<string, string> = { image_id: props.currentImageId };
    for (const s of props.settings) input[firstBootSettingKey(s.field)] = s.digest;
    this.resource = new DataResource(this, 'Record', {
      input,
      triggersReplace: { instance: props.instanceId },
      lifecycle: { ignoreChanges: ['input'] },
    });
    const recorded = (key: string) => this.resource.interpolationForAttribute(`input.${key}`);
    const same = (key: string, value: string) => Token.asString(Op.eq(recorded(key), value));
    // try(): a record made before a setting existed (or without it) has no such key, and a plain
    // reference to it would fail every plan with "Unsupported attribute".
    const sameSetting = (s: FirstBootSetting) => Token.asString(Op.eq(Fn.try([recorded(firstBootSettingKey(s.field)), s.unrecordedDigest ?? s.digest]), s.digest));
    const asserts = [
      {
        condition: same('image_id', props.currentImageId),
        error_message: terraformLiteral(
          `A newer image named "${props.imageName}" exists, but it applies to a new management VM only: the running VM keeps booting from the volume made of the image it was created with. To move the management cluster onto a new VM, back it up and replace the VM (capi-openstack management replace ${props.environment}; docs/day-2.md).`,
        ),
      },
      ...props.settings.map((s) => ({
        condition: sameSetting(s),
        error_message: terraformLiteral(firstBootChangeMessage(s.field, props.environment)),
      })),
    ];
    const checkName = `first_boot_${this.node.addr.slice(0, 12)}`;
    TerraformStack.of(this).addOverride(`check.${checkName}`, { assert: asserts });
  }
}
