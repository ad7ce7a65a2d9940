import { S3Backend, TerraformBackend, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { StateLocation, stateLocation } from '../config/state-backend';

/** The backends this library gave a stack, with the state object each points at. */
const given = new WeakMap<TerraformBackend, string>();

const describeLocation = (at: StateLocation) => `s3://${at.bucket}/${at.key} at ${at.endpoint}`;

/**
 * Puts the state of the stack holding `scope` into the environment's shared store (`stateBackend`),
 * with Terraform's lock file next to it; no-op for environments on local state. Called by the
 * constructs themselves, so the stacks of `buildEnvironmentStacks`, `new ManagementStack(…)` and a
 * consumer's own stack all get it; cross-stack references then read the producing stack's outputs
 * through the same store (cdktf derives the remote state source from this backend). A stack that
 * already has another backend is refused: its state would not be where the environment says.
 * Credentials are Terraform's usual ones (AWS_* variables or a profile).
 */
export function useEnvironmentStateBackend(scope: Construct, env: EnvironmentConfig, construct: string): void {
  const stack = TerraformStack.of(scope);
  const at = stateLocation(env, stack.node.id);
  if (!at) return;
  const where = describeLocation(at);
  const existing = backendsOf(stack);
  if (existing.length > 0) {
    if (existing.every((b) => given.get(b) === where)) return;
    throw new Error(conflict(stack, env, construct, where, existing));
  }
  const backend = new S3Backend(stack, {
    bucket: at.bucket,
    key: at.key,
    region: at.region,
    endpoints: { s3: at.endpoint },
    usePathStyle: true,
    // Not AWS: no STS, no account id, no EC2 metadata, and no trailing checksums (which many
    // S3-compatible stores refuse).
    skipCredentialsValidation: true,
    skipRegionValidation: true,
    skipRequestingAccountId: true,
    skipMetadataApiCheck: true,
    skipS3Checksum: true,
  });
  // Terraform >= 1.10 locks with a `<key>.tflock` object (conditional PUT); cdktf 0.21 has no prop for it.
  backend.addOverride('use_lockfile', true);
  given.set(backend, where);
  // A backend swapped in later (an override, a second backend) must not silently move the state.
  stack.node.addValidation({
    validate: () => {
      const now = backendsOf(stack);
      return now.length === 1 && given.get(now[0]) === where ? [] : [conflict(stack, env, construct, where, now.filter((b) => b !== backend))];
    },
  });
}

function backendsOf(stack: TerraformStack): TerraformBackend[] {
  return stack.node.findAll().filter((c): c is TerraformBackend => TerraformBackend.isBackend(c));
}

function conflict(stack: TerraformStack, env: EnvironmentConfig, construct: string, where: string, others: readonly TerraformBackend[]): string {
  const theirs = others.map((b) => `${b.constructor.name} (${b.node.path})`).join(', ') || 'another backend';
  return (
    `${construct} in stack "${stack.node.id}": environment "${env.name}" keeps its Terraform state in ${where} (stateBackend of ${env.file}), ` +
    `but the stack already has the backend ${theirs}. Leave stateBackend out of the environment when your code gives the stack its backend, ` +
    `or remove that backend and let the construct add the environment's`
  );
}
