import { TerraformStack } from 'cdktf';
import { Construct, IConstruct } from 'constructs';
import { sharedNames } from '../config/owned-names';

/** One name a construct gives what it creates: an OpenStack name (floating IPs: description) or a Kubernetes namespace. */
export interface NameClaim {
  readonly kind: string;
  readonly name: string;
}

/** A construct and the names it creates, with what a clash message needs to explain itself. */
export interface NameOwner {
  readonly construct: Construct;
  /** The construct's class, e.g. `WorkloadCluster`. */
  readonly type: string;
  /** The prop the names come from, e.g. `cluster`. */
  readonly prop: string;
  /** What it builds, e.g. `cluster "web" of environment "acme"`: two owners of one subject build it twice. */
  readonly subject: string;
  /** What building the subject twice does, and the way out. */
  readonly twice: string;
  /** How its names are joined, e.g. `prefix "capi" + environment "acme" + cluster "web"`. */
  readonly parts: string;
  readonly names: readonly NameClaim[];
}

/** The owners of each app (the construct tree's root), in construction order. */
const ownersByRoot = new WeakMap<IConstruct, NameOwner[]>();

const SHOWN = 3;

/**
 * Records the names `owner.construct` creates; synthesis of its stack fails when another construct
 * of the same app creates one of them too, naming both construct paths. Names are joined with `-`
 * (see config/owned-names.ts), so two different environments or clusters can produce one name,
 * and one construct built twice (two stacks, two ids) always does: destroying either stack would
 * delete what the other still uses. A validation rather than a throw: the later construct may not
 * exist yet when the earlier one is built, and cdktf reports it with the construct path at synth.
 */
export function claimOwnedNames(owner: NameOwner): void {
  const root = owner.construct.node.root;
  let owners = ownersByRoot.get(root);
  if (!owners) ownersByRoot.set(root, (owners = []));
  const all = owners;
  all.push(owner);
  owner.construct.node.addValidation({ validate: () => clashesOf(owner, all) });
}

function clashesOf(owner: NameOwner, all: readonly NameOwner[]): string[] {
  const mine = all.indexOf(owner);
  return all.flatMap((other, i) => {
    if (other === owner) return [];
    const shared = sharedNames(other.names, owner.names);
    if (shared.length === 0) return [];
    // within one stack the later of the two reports the pair (one message, not two)
    if (i > mine && TerraformStack.of(other.construct) === TerraformStack.of(owner.construct)) return [];
    return [clashMessage(owner, other, shared)];
  });
}

function clashMessage(owner: NameOwner, other: NameOwner, shared: readonly NameClaim[]): string {
  const listed = shared.slice(0, SHOWN).map((n) => `${n.kind} "${n.name}"`).join(', ');
  const more = shared.length > SHOWN ? ` and ${shared.length - SHOWN} more` : '';
  const why =
    owner.subject === other.subject
      ? `both build ${owner.subject}: ${owner.twice}`
      : `${other.parts} and ${owner.parts} join to the same names: rename a cluster or give one environment another prefix`;
  return (
    `${owner.type}: ${owner.prop}: expected OpenStack and Kubernetes names no other construct of the app creates, ` +
    `found ${shared.length === 1 ? 'one' : shared.length} shared with ${other.type} at ${other.construct.node.path} (${listed}${more}); ${why}`
  );
}
