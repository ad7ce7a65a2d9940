import { TerraformProvider, TerraformStack, Token } from 'cdktf';
import { Construct } from 'constructs';
import { describeFound } from '../config/errors';
import { terraformLiteral } from './terraform-literal';

/** The clouds.yaml entry a construct's OpenStack resources must be created with, and the field that names it. */
export interface ExpectedCloud {
  /** The entry, e.g. `mycloud`. */
  readonly name: string;
  /** The environment field it comes from, e.g. `cloud.name` or `management.cloud`. */
  readonly field: string;
  /** How to add the right provider, for the message. */
  readonly fix: string;
}

/**
 * At synth, refuses a default (alias-free) OpenStack provider in the construct's stack whose
 * `cloud` is another clouds.yaml entry than the environment's: the resources, named after the
 * environment, would be created in another project than the one its cleanup, orphans check and
 * workload credentials look at. A provider without `cloud` (OS_* variables) or with an apply-time
 * value cannot be compared and passes. A validation: the provider may be added after the construct.
 */
export function requireProviderCloud(scope: Construct, construct: string, prop: string, expected: ExpectedCloud): void {
  const stack = TerraformStack.of(scope);
  scope.node.addValidation({
    validate: () =>
      stack.node
        .findAll()
        .filter((c): c is TerraformProvider => TerraformProvider.isTerraformProvider(c) && c.terraformResourceType === 'openstack')
        .filter((p) => p.alias === undefined)
        .flatMap((p) => {
          const cloud: unknown = (p as unknown as { readonly cloud?: unknown }).cloud;
          if (typeof cloud !== 'string' || Token.isUnresolved(cloud) || cloud === expected.name || cloud === terraformLiteral(expected.name)) return [];
          return [
            `${construct}: ${prop}: expected the OpenStack provider of stack "${stack.node.id}" to log in with the environment's clouds.yaml entry "${expected.name}" (${expected.field}), ` +
              `found OpenstackProvider at ${p.node.path} with cloud ${describeFound(cloud)}: the resources would go to another project than the environment's; ${expected.fix}`,
          ];
        }),
  });
}
