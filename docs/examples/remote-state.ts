import { S3Backend, TerraformStack } from 'cdktf';
import { EnvironmentsApp } from '../../lib';

/** Where the state of every stack goes: an S3-compatible bucket (Ceph RGW, Swift s3api, MinIO, ...). */
export interface S3StateSettings {
  /** Object store URL, e.g. https://object-store.example.com */
  readonly endpoint: string;
  /** Bucket (container); it must exist. */
  readonly bucket: string;
}

/**
 * Gives every stack of the app its own state object `<env>/<stack>.tfstate` in the bucket.
 * Credentials are not in the code: Terraform reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
 * (for Swift or Ceph: `openstack ec2 credentials create`).
 */
export function useS3State(envApp: EnvironmentsApp, settings: S3StateSettings): void {
  for (const [env, stacks] of Object.entries(envApp.environments)) {
    const all: TerraformStack[] = [...(stacks.management ? [stacks.management] : []), ...Object.values(stacks.clusters)];
    for (const stack of all) {
      new S3Backend(stack, {
        bucket: settings.bucket,
        key: `${env}/${stack.node.id}.tfstate`,
        region: 'us-east-1', // required by the backend, not used by non-AWS stores
        endpoints: { s3: settings.endpoint },
        usePathStyle: true,
        skipCredentialsValidation: true,
        skipRegionValidation: true,
        skipRequestingAccountId: true,
        skipMetadataApiCheck: true,
        skipS3Checksum: true,
      });
    }
  }
}

// main.ts of your own cdktf app:
//   const envApp = new EnvironmentsApp();
//   useS3State(envApp, { endpoint: 'https://object-store.example.com', bucket: 'capi-state' });
//   envApp.synth();
