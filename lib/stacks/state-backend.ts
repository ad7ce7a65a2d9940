import { S3Backend, TerraformStack } from 'cdktf';
import { EnvironmentConfig } from '../config/resolve';
import { stateLocation } from '../config/state-backend';

/**
 * Puts the stack's state into the environment's shared store (`stateBackend`), with Terraform's
 * lock file next to it; no-op for environments on local state. Workload stacks read the
 * management stack's outputs through the same store (cdktf derives the remote state source from
 * this backend). Credentials are Terraform's usual ones (AWS_* variables or a profile).
 */
export function applyStateBackend(stack: TerraformStack, env: EnvironmentConfig): void {
  const at = stateLocation(env, stack.node.id);
  if (!at) return;
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
}
