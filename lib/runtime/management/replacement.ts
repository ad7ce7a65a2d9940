/**
 * A deliberate replacement of the management VM (the plan never replaces it on its own): which
 * resources Terraform must replace, read from the synthesized management stack, and what else a
 * replacement plan may change. `management replace` applies a saved plan only when it changes
 * nothing beyond these, so no other pending change (CIDRs, versions, …) rides along unseen.
 */
import * as fs from 'fs';
import * as path from 'path';
import { BackupError } from './backup-archive';

export interface ReplacementTargets {
  /** `-replace` addresses: the management server and its boot volume. */
  readonly replace: readonly string[];
  /**
   * What the plan may change: the replaced resources and the records keyed by the server's id
   * alone (the first-boot record, the readiness gate), which Terraform replaces with it.
   */
  readonly allowed: readonly string[];
}

type Resources = Record<string, Record<string, { triggers_replace?: unknown }>>;

export function replacementTargets(stackDir: string, stack: string): ReplacementTargets {
  const file = path.join(stackDir, 'cdk.tf.json');
  if (!fs.existsSync(file)) throw new BackupError(`no synthesized stack ${stack} (${file} does not exist): run \`cdktf synth\` in the project first`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { resource?: Resources };
  const of = (type: string) => Object.keys(json.resource?.[type] ?? {}).map((name) => `${type}.${name}`);
  const servers = of('openstack_compute_instance_v2');
  if (servers.length !== 1) throw new BackupError(`stack ${stack} has ${servers.length} servers (openstack_compute_instance_v2): expected the one management VM`);
  // the boot volume holds the old image's disk: a new VM starts from the newest image
  const replace = [...servers, ...of('openstack_blockstorage_volume_v3')];
  const serverId = `\${${servers[0]}.id}`;
  const followers = Object.entries(json.resource?.terraform_data ?? {})
    .filter(([, r]) => {
      const triggers = r.triggers_replace;
      return !!triggers && typeof triggers === 'object' && Object.values(triggers).length > 0 && Object.values(triggers).every((v) => v === serverId);
    })
    .map(([name]) => `terraform_data.${name}`);
  return { replace, allowed: [...replace, ...followers] };
}

/** One change of `terraform show -json <plan>`'s resource_changes. */
interface ResourceChange {
  readonly address?: unknown;
  readonly mode?: unknown;
  readonly change?: { readonly actions?: unknown };
}

/**
 * The changes of a saved plan (its `terraform show -json`) beyond `allowed`, as `<address>
 * (<actions>)`: empty when the plan replaces the VM and nothing else.
 */
export function changesBeyondReplacement(planJson: string, allowed: readonly string[]): string[] {
  let plan: { resource_changes?: unknown };
  try {
    plan = JSON.parse(planJson);
  } catch {
    throw new BackupError('terraform show -json of the replacement plan is not JSON');
  }
  const changes = Array.isArray(plan.resource_changes) ? (plan.resource_changes as ResourceChange[]) : [];
  return changes
    .filter((c) => c.mode === 'managed')
    .filter((c) => {
      const actions = Array.isArray(c.change?.actions) ? (c.change.actions as unknown[]) : [];
      return !(actions.length === 1 && actions[0] === 'no-op') && !allowed.includes(String(c.address));
    })
    .map((c) => `${String(c.address)} (${(Array.isArray(c.change?.actions) ? (c.change.actions as unknown[]) : []).join('+') || 'unknown action'})`);
}
