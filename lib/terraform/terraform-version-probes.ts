import { IConstruct } from 'constructs';

/** The shape of cdktf's `ValidateBinaryVersion` (not exported): a command run at synth, and its constraint. */
interface BinaryVersionProbe {
  readonly versionCommand: string;
  readonly versionConstraint: string;
}

function isBinaryVersionProbe(v: unknown): v is BinaryVersionProbe {
  const o = v as Partial<BinaryVersionProbe> | null;
  return typeof o === 'object' && o !== null && typeof o.versionCommand === 'string' && typeof o.versionConstraint === 'string';
}

/**
 * Removes the validations with which cdktf checks, at synth, that the Terraform binary is recent
 * enough for `terraform_data` (>= 1.4) and import/move blocks (>= 1.5): each runs `terraform version`
 * as a process of its own, one per `terraform_data`, three per environment, on every
 * `cdktf deploy/diff/destroy`. Terraform itself refuses an unknown resource type or block at plan,
 * so the probes only cost time (and make synthesis need a Terraform binary). Returns how many were
 * removed; none when cdktf keeps its validations elsewhere than where 0.21 does (they then run).
 */
export function removeTerraformVersionProbes(root: IConstruct): number {
  let removed = 0;
  for (const c of root.node.findAll()) {
    // constructs 10 keeps a node's validations in this private array, with no public way to remove one
    const validations = (c.node as unknown as { _validations?: unknown })._validations;
    if (!Array.isArray(validations)) continue;
    for (let i = validations.length - 1; i >= 0; i--) {
      if (isBinaryVersionProbe(validations[i])) {
        validations.splice(i, 1);
        removed++;
      }
    }
  }
  return removed;
}
