import { Fn } from 'cdktf';
import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { CertRequest } from '../gen/tls/cert-request';
import { LocallySignedCert } from '../gen/tls/locally-signed-cert';
import { PrivateKey } from '../gen/tls/private-key';
import { SelfSignedCert } from '../gen/tls/self-signed-cert';

export interface ClusterPkiProps {
  /** Common name of the CA, e.g. the cluster name. */
  readonly caCommonName: string;
  /**
   * Validity of the CA.
   * @default 87600 (10 years)
   */
  readonly caValidityHours?: number;
  /**
   * Validity of the admin client certificate; Terraform renews it `adminEarlyRenewalHours` before it expires.
   * @default 8760 (1 year)
   */
  readonly adminValidityHours?: number;
  /**
   * How long before expiry Terraform replaces the admin client certificate (on the next apply).
   * @default 720 (30 days)
   */
  readonly adminEarlyRenewalHours?: number;
}

/**
 * The CA of a Kubernetes cluster and an admin client certificate, minted by Terraform so the
 * kubeconfig is known without logging into any machine. kubeadm reuses an existing CA.
 */
export class ClusterPki extends Construct {
  /** CA certificate PEM. */
  public readonly caCertificatePem: string;
  /** CA private key PEM (sensitive). */
  public readonly caPrivateKeyPem: string;
  /** Admin client certificate PEM (group system:masters). */
  public readonly adminCertificatePem: string;
  /** Admin client key PEM (sensitive). */
  public readonly adminPrivateKeyPem: string;

  constructor(scope: Construct, id: string, props: ClusterPkiProps) {
    super(scope, id);
    new PropChecks('ClusterPki', this).props(props);
    const adminValidity = props.adminValidityHours ?? 8760;
    new PropChecks('ClusterPki', this)
      .required('caCommonName', props.caCommonName)
      .integer('caValidityHours', props.caValidityHours, 1, 876000)
      // a client certificate valid after its CA expired is rejected by the API server anyway
      .integer('adminValidityHours', props.adminValidityHours, 1, props.caValidityHours ?? 87600)
      .check(props.adminValidityHours !== undefined || props.caValidityHours === undefined || props.caValidityHours >= adminValidity, 'adminValidityHours', `a value at most caValidityHours (${props.caValidityHours})`, `nothing (the default ${adminValidity} outlives the CA)`)
      // renewing at or before issue would replace the certificate on every apply
      .integer('adminEarlyRenewalHours', props.adminEarlyRenewalHours, 0, adminValidity - 1)
      .done();
    requireProvider(this, 'ClusterPki', 'tls');
    const caKey = new PrivateKey(this, 'CaKey', { algorithm: 'RSA', rsaBits: 2048 });
    const ca = new SelfSignedCert(this, 'Ca', {
      privateKeyPem: caKey.privateKeyPem,
      isCaCertificate: true,
      validityPeriodHours: props.caValidityHours ?? 87600,
      allowedUses: ['cert_signing', 'digital_signature', 'key_encipherment'],
      subject: [{ commonName: props.caCommonName }],
    });
    const adminKey = new PrivateKey(this, 'AdminKey', { algorithm: 'RSA', rsaBits: 2048 });
    const request = new CertRequest(this, 'AdminRequest', {
      privateKeyPem: adminKey.privateKeyPem,
      subject: [{ commonName: 'capi-openstack-admin', organization: 'system:masters' }],
    });
    const admin = new LocallySignedCert(this, 'Admin', {
      certRequestPem: request.certRequestPem,
      caPrivateKeyPem: caKey.privateKeyPem,
      caCertPem: ca.certPem,
      validityPeriodHours: props.adminValidityHours ?? 8760,
      earlyRenewalHours: props.adminEarlyRenewalHours ?? 720,
      allowedUses: ['client_auth', 'digital_signature', 'key_encipherment'],
    });
    this.caCertificatePem = ca.certPem;
    this.caPrivateKeyPem = caKey.privateKeyPem;
    this.adminCertificatePem = admin.certPem;
    this.adminPrivateKeyPem = adminKey.privateKeyPem;
  }

  /** Base64 helpers for kubeconfig and cloud-init (single-line tokens). */
  public get caCertificateBase64(): string {
    return Fn.base64encode(this.caCertificatePem);
  }
}
