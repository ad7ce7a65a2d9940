import { TerraformStack } from 'cdktf';
import { PROVIDER_VERSIONS } from '../gen/versions';

/**
 * The @cdktf/provider-kubernetes and -helm packages declare the provider release they were
 * generated from; the offline mirror holds the builds listed in PROVIDER_VERSIONS instead (the
 * Go proxy does not serve those releases). Pin the stack to the mirrored build so `terraform init`
 * needs no registry; the provider schema test checks that every emitted attribute exists in it.
 */
export function pinMirroredProvider(stack: TerraformStack, name: 'kubernetes' | 'helm'): void {
  stack.addOverride(`terraform.required_providers.${name}`, { source: PROVIDER_VERSIONS[name].source, version: PROVIDER_VERSIONS[name].version });
}
