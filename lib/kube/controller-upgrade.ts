import { DataResource, ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { ManifestDownload, UPGRADE_MANIFEST_KEYS } from '../config/provider-manifests';
import { bundledScriptCommand } from '../terraform/bundled-script';
import { PropChecks } from '../terraform/prop-checks';
import { terraformLiteral } from '../terraform/terraform-literal';
import { adminAccessEnvironment } from './admin-access-env';

export interface ControllerUpgradeProps {
  /** API server URL of the management cluster. */
  readonly server: string;
  readonly caCertificatePem: string;
  /** Admin client certificate and key (the key is sensitive). */
  readonly clientCertificatePem: string;
  readonly clientKeyPem: string;
  /** Environment name (backup file names). */
  readonly environment: string;
  /** The controller versions the management cluster must run. */
  readonly clusterApiVersion: string;
  readonly capoVersion: string;
  readonly caaphVersion: string;
  /**
   * Where the backup before an upgrade goes: a directory (relative to the stack's directory), or
   * the state store's S3 bucket.
   */
  readonly backup: { readonly dir: string } | { readonly s3: { readonly endpoint: string; readonly bucket: string; readonly region: string; readonly prefix: string } };
  /**
   * The pinned manifests (`pinnedManifests` of the environment): the upgrade installs these files
   * only, each checked against its SHA-256, from their URLs or from CAPI_OPENSTACK_CLUSTERCTL_REPOSITORY.
   * @default - none: clusterctl downloads the components unverified from the providers' releases
   */
  readonly providerManifests?: readonly ManifestDownload[];
  /** Runs after these (the readiness gate: the API answers). */
  readonly dependsOn: ITerraformDependable[];
  /**
   * Bound of the wait for the upgraded controllers.
   * @default 20
   */
  readonly readyTimeoutMinutes?: number;
}

/**
 * Upgrades the running controllers when the versions change: a terraform_data keyed by the
 * versions whose local-exec runs the bundled upgrade (the components, verified when pinned; a
 * backup; `clusterctl upgrade apply` over the management API; the readiness wait) on the
 * operator's machine, no SSH. On a new VM the controllers already run the versions, and the run
 * only says so.
 */
export class ControllerUpgrade extends Construct {
  public readonly resource: DataResource;

  constructor(scope: Construct, id: string, props: ControllerUpgradeProps) {
    super(scope, id);
    new PropChecks('ControllerUpgrade', this).props(props);
    new PropChecks('ControllerUpgrade', this)
      .url('server', props.server)
      .present(props, 'caCertificatePem', 'clientCertificatePem', 'clientKeyPem', 'environment', 'clusterApiVersion', 'capoVersion', 'caaphVersion')
      .integer('readyTimeoutMinutes', props.readyTimeoutMinutes, 1, 1440)
      .done();
    const backup: Record<string, string> =
      'dir' in props.backup
        ? { UPGRADE_BACKUP_DIR: props.backup.dir }
        : { UPGRADE_BACKUP_S3_ENDPOINT: props.backup.s3.endpoint, UPGRADE_BACKUP_S3_BUCKET: props.backup.s3.bucket, UPGRADE_BACKUP_S3_REGION: props.backup.s3.region, UPGRADE_BACKUP_S3_PREFIX: props.backup.s3.prefix };
    const versions = { clusterApi: props.clusterApiVersion, capo: props.capoVersion, caaph: props.caaphVersion };
    this.resource = new DataResource(this, 'Upgrade', {
      // the plan names the upgrade: this resource is replaced, its versions shown old → new
      triggersReplace: versions,
      dependsOn: props.dependsOn,
      provisioners: [
        {
          type: 'local-exec',
          command: bundledScriptCommand(this, 'upgrade-management.js'),
          environment: {
            ...adminAccessEnvironment(props),
            UPGRADE_ENVIRONMENT: props.environment,
            UPGRADE_CLUSTER_API: versions.clusterApi,
            UPGRADE_CAPO: versions.capo,
            UPGRADE_CAAPH: versions.caaph,
            READY_TIMEOUT_MINUTES: String(props.readyTimeoutMinutes ?? 20),
            ...backup,
            ...(props.providerManifests ? { UPGRADE_PROVIDER_MANIFESTS: terraformLiteral(JSON.stringify(props.providerManifests.filter((m) => (UPGRADE_MANIFEST_KEYS as readonly string[]).includes(m.key)))) } : {}),
          },
        },
      ],
    });
  }
}
