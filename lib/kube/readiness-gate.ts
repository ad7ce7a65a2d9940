import { DataResource } from 'cdktf';
import { Construct } from 'constructs';
import { bundledScriptCommand } from '../terraform/bundled-script';
import { PropChecks } from '../terraform/prop-checks';
import { adminAccessEnvironment } from './admin-access-env';

export interface ReadinessGateProps {
  /** API server URL. */
  readonly server: string;
  /** CA certificate PEM the API server certificate is checked against. */
  readonly caCertificatePem: string;
  /** Client certificate PEM of an identity allowed to read CRDs and deployments (the admin). */
  readonly clientCertificatePem: string;
  /** Client key PEM (sensitive). */
  readonly clientKeyPem: string;
  /** The gate runs again when any of these change (e.g. the VM id). */
  readonly triggers: Record<string, string>;
  /**
   * Bound of the wait; the apply fails with a message naming what is still missing.
   * @default 20
   */
  readonly timeoutMinutes?: number;
}

/**
 * Blocks the stack until the management cluster accepts CAPI objects: a terraform_data resource
 * whose local-exec runs the bundled wait script on the operator's machine (no SSH).
 */
export class ReadinessGate extends Construct {
  public readonly resource: DataResource;

  constructor(scope: Construct, id: string, props: ReadinessGateProps) {
    super(scope, id);
    new PropChecks('ReadinessGate', this).props(props);
    new PropChecks('ReadinessGate', this)
      .url('server', props.server)
      .present(props, 'caCertificatePem', 'clientCertificatePem', 'clientKeyPem')
      .integer('timeoutMinutes', props.timeoutMinutes, 1, 1440)
      .done();
    this.resource = new DataResource(this, 'Wait', {
      triggersReplace: props.triggers,
      provisioners: [
        {
          type: 'local-exec',
          command: bundledScriptCommand(this, 'wait-for-management.js'),
          environment: {
            ...adminAccessEnvironment(props),
            READY_TIMEOUT_MINUTES: String(props.timeoutMinutes ?? 20),
          },
        },
      ],
    });
  }
}
