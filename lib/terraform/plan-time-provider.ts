import { DefaultTokenResolver, StringConcat, TerraformDataSource, TerraformProvider, TerraformResource, TerraformStack, Tokenization } from 'cdktf';

/**
 * No provider may be configured from values unknown at plan time: a provider whose connection
 * (host, certificates, …) comes from resources of its own stack cannot plan a fresh stack, and a
 * later replacement of those resources breaks every plan. Returns one message per such provider of
 * `type` in the stack, naming the resources and the two-stack pattern to use instead.
 */
export function providersFromOwnStack(stack: TerraformStack, type: string, who: readonly string[]): string[] {
  const own = new Set(
    stack.node
      .findAll()
      .filter((c): c is TerraformResource => TerraformResource.isTerraformResource(c) && !TerraformDataSource.isTerraformDataSource(c))
      .map((r) => r.terraformResourceType),
  );
  const problems: string[] = [];
  for (const provider of stack.node.findAll().filter((c): c is TerraformProvider => TerraformProvider.isTerraformProvider(c) && c.terraformResourceType === type)) {
    const config = JSON.stringify(Tokenization.resolve(provider.toTerraform(), { scope: stack, resolver: new DefaultTokenResolver(new StringConcat()) }));
    const refs = [...new Set([...config.matchAll(/\$\{[^}]*?\b([a-z][a-z0-9_]*)\.([A-Za-z0-9_-]+)\./g)].filter((m) => own.has(m[1])).map((m) => `${m[1]}.${m[2]}`))];
    if (refs.length === 0) continue;
    problems.push(
      `${who.join(', ')} in stack "${stack.node.id}": the ${type} provider ${provider.node.path} is configured from ${refs.slice(0, 3).join(', ')}${refs.length > 3 ? ', …' : ''} of the same stack, ` +
        'unknown at plan time (no provider may be configured from such values). Put the management cluster in a stack of its own and the workload cluster in a second one that depends on it: ' +
        "new ManagementStack(app, '<env>-management', { environment }) and new WorkloadClusterStack(app, '<env>-<cluster>', { environment, cluster, management }), " +
        "or in stacks of your own new KubernetesProvider(workloadStack, 'Management', managementKubernetesConnection(managementCluster)) with the ManagementCluster in the other stack (its values then arrive as cross-stack references)",
    );
  }
  return problems;
}
