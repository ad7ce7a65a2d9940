import * as fs from 'fs';
import * as path from 'path';
import { TerraformElement, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { ClusterRecord, EnvironmentSource, ManagementOutput, stackRecordsFragment, WorkloadOutput } from '../config/stack-records';

export type StackRecordProps =
  | { readonly environment: EnvironmentConfig; readonly role: 'management'; readonly outputs: Readonly<Record<ManagementOutput, TerraformOutput>> }
  | { readonly environment: EnvironmentConfig; readonly role: 'workload'; readonly cluster: string; readonly outputs: Readonly<Record<WorkloadOutput, TerraformOutput>> };

const names = <K extends string>(outputs: Readonly<Record<K, TerraformOutput>>): Record<K, string> =>
  Object.fromEntries(Object.entries<TerraformOutput>(outputs).map(([name, o]) => [name, o.friendlyUniqueId])) as Record<K, string>;

/**
 * Writes what the operator commands need to know about the cluster construct holding it into the
 * stack's JSON (lib/config/stack-records.ts): environment, role, cluster and the Terraform names
 * of its outputs. Names are read at synthesis, so a later `overrideLogicalId` is recorded too.
 */
export class StackRecord extends TerraformElement {
  constructor(
    scope: Construct,
    id: string,
    private readonly props: StackRecordProps,
  ) {
    super(scope, id);
  }

  /** The first record of a stack writes every record of the stack (cdktf would append the lists inside two environments' settings). */
  public toTerraform(): Record<string, unknown> {
    const all = TerraformStack.of(this)
      .node.findAll()
      .filter((c): c is StackRecord => c instanceof StackRecord);
    if (all[0] !== this) return {};
    const environments: Record<string, EnvironmentSource> = {};
    for (const r of all) environments[r.props.environment.name] ??= environmentSource(r.props.environment);
    return stackRecordsFragment(environments, all.map((r) => r.record()));
  }

  private record(): ClusterRecord {
    const p = this.props;
    const owner = this.node.scope!.node.path;
    return p.role === 'management'
      ? { role: p.role, environment: p.environment.name, path: owner, outputs: names(p.outputs) }
      : { role: p.role, environment: p.environment.name, cluster: p.cluster, path: owner, outputs: names(p.outputs) };
  }
}

/**
 * An environment loaded from a file is recorded by its path (relative to the directory the app
 * runs in, the cdktf project); one built in code by its validated settings, which hold no secrets
 * (environment files never do).
 */
function environmentSource(env: EnvironmentConfig): EnvironmentSource {
  const file = path.resolve(env.file);
  if (fs.existsSync(file) && fs.statSync(file).isFile()) {
    const rel = path.relative(process.cwd(), file);
    return { file: rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file };
  }
  return { spec: JSON.parse(JSON.stringify(env.spec)) as Record<string, unknown> };
}
