import { TerraformProvider, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { requireOneFramework } from './framework-copy';
import { providersFromOwnStack } from './plan-time-provider';

/** How a consumer adds each provider the constructs need. */
export type RequiredProvider = 'openstack' | 'tls' | 'time' | 'kubernetes';

const HOW_TO_ADD: Readonly<Record<RequiredProvider, string>> = {
  openstack: "environmentOpenstackProvider(stack, environment), or new OpenstackProvider(stack, 'OpenStack', { cloud: '<clouds.yaml entry>' })",
  tls: "new TlsProvider(stack, 'Tls')",
  time: "new TimeProvider(stack, 'Time')",
  kubernetes: "new KubernetesProvider(stack, 'Management', managementKubernetesConnection(management)) pointed at the management cluster of another stack",
};

const checked = new WeakMap<TerraformStack, Map<RequiredProvider, string[]>>();

/**
 * Records that `construct` needs the `provider` provider in its stack; synthesis fails with one
 * message per missing provider that names it, who needs it and how to add it (all imported from
 * capi-openstack-cdktf), instead of cdktf's generic "resources without a matching provider".
 */
export function requireProvider(scope: Construct, construct: string, provider: RequiredProvider): void {
  requireOneFramework(scope, construct);
  const stack = TerraformStack.of(scope);
  let needs = checked.get(stack);
  if (!needs) {
    const byProvider = new Map<RequiredProvider, string[]>();
    checked.set(stack, byProvider);
    needs = byProvider;
    stack.node.addValidation({ validate: () => missingProviders(stack, byProvider) });
  }
  const who = needs.get(provider) ?? [];
  if (!who.includes(construct)) who.push(construct);
  needs.set(provider, who);
}

/** Providers the constructs need connected to something else than their own stack's resources. */
const FROM_OTHER_STACKS: ReadonlySet<RequiredProvider> = new Set(['kubernetes']);

function missingProviders(stack: TerraformStack, needs: ReadonlyMap<RequiredProvider, readonly string[]>): string[] {
  const present = new Set(stack.node.findAll().filter((c): c is TerraformProvider => TerraformProvider.isTerraformProvider(c)).map((p) => p.terraformResourceType));
  return [...needs.entries()].flatMap(([provider, who]) =>
    !present.has(provider)
      ? [`${who.join(', ')} need(s) the ${provider} provider in stack "${stack.node.id}": add ${HOW_TO_ADD[provider]} (import it from 'capi-openstack-cdktf')`]
      : FROM_OTHER_STACKS.has(provider)
        ? providersFromOwnStack(stack, provider, who)
        : [],
  );
}
