import * as path from 'path';
import { Fn, TerraformOutput, TerraformResource, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { EnvironmentConfig } from '../config/resolve';
import { firstBootSettings } from '../config/first-boot-settings';
import { pinnedManifests } from '../config/provider-manifests';
import { ManagementOutput } from '../config/stack-records';
import { ControllerUpgrade } from '../kube/controller-upgrade';
import { renderKubeconfig } from '../kubeconfig/kubeconfig';
import { ReadinessGate } from '../kube/readiness-gate';
import { managementUserDataProps } from '../management-vm/environment-props';
import { renderManagementUserData } from '../management-vm/management-user-data';
import { CloudLookups } from '../openstack/cloud-lookups';
import { ManagementEndpoint } from '../openstack/management-endpoint';
import { ManagementNetwork } from '../openstack/management-network';
import { ManagementServer } from '../openstack/management-server';
import { SecurityGroup } from '../openstack/security-group';
import { managementRules, nodeAccessRules } from '../openstack/security-rules';
import { ClusterPki } from '../pki/cluster-pki';
import { pathFromStackDir } from '../terraform/bundled-script';
import { FirstBootRecord } from './first-boot-record';
import { guardManagementCluster } from './management-cluster-guards';
import { IManagementCluster } from './management-cluster-ref';
import { StackRecord } from './stack-record';
import { useEnvironmentStateBackend } from '../terraform/state-backend';

export interface ManagementClusterProps {
  /** A loaded environment (see `loadEnvironmentFile`); its `management`, `network` and `cloud` settings apply. */
  readonly environment: EnvironmentConfig;
}

/** Port of the management Kubernetes API on the floating IP. */
export const MANAGEMENT_API_PORT = 6443;

/**
 * The OpenStack side of an environment and the management VM running kind with Cluster API, CAPO
 * and the Helm add-on provider: network, security groups, floating IP,
 * PKI, the VM and (optionally) the wait until it accepts CAPI objects. Needs the OpenStack and TLS
 * providers in its stack.
 *
 * Declares the outputs the operator commands read (`kubeconfig`, `api_endpoint`, the PEMs: the
 * credentials among them sensitive) and records them, with its environment, in the stack's JSON,
 * so `capi-openstack kubeconfig|state|management <env>` find it in any stack of any id.
 */
export class ManagementCluster extends Construct implements IManagementCluster {
  /** The environment it belongs to; a WorkloadCluster of another environment refuses it. */
  public readonly environmentName: string;
  public readonly apiEndpoint: string;
  public readonly floatingIp: string;
  public readonly caCertificatePem: string;
  public readonly adminCertificatePem: string;
  public readonly adminKeyPem: string;
  public readonly externalNetworkId: string;
  public readonly externalNetworkName: string;
  public readonly nodeAccessSecurityGroupName: string;
  /** Id of the management VM. */
  public readonly instanceId: string;
  /** What "the management cluster is ready" waits for: the readiness gate, else the VM. */
  public readonly readyResources: readonly TerraformResource[];

  constructor(scope: Construct, id: string, props: ManagementClusterProps) {
    super(scope, id);
    guardManagementCluster(this, props);
    const env = props.environment;
    const spec = env.spec;
    this.environmentName = env.name;
    useEnvironmentStateBackend(this, env, 'ManagementCluster');
    const name = env.resourcePrefix;
    const lookups = new CloudLookups(this, 'Cloud', {
      flavorName: spec.management.flavor,
      imageName: spec.management.image,
      externalNetworkName: spec.network.externalNetworkName,
      externalNetworkId: spec.network.externalNetworkId,
    });
    const network = new ManagementNetwork(this, 'Network', {
      namePrefix: name,
      cidr: spec.network.managementCidr,
      allocationPoolStart: env.allocationPool.start,
      allocationPoolEnd: env.allocationPool.end,
      dnsNameservers: spec.network.dnsNameservers,
      externalNetworkId: lookups.externalNetworkId,
      routerAvailabilityZoneHint: spec.network.routerAvailabilityZoneHint,
    });
    const managementGroup = new SecurityGroup(this, 'ManagementSecurityGroup', {
      name: `${name}-mgmt`,
      description: 'Management VM: API and SSH only from configured CIDRs',
      rules: managementRules({ apiAllowedCidrs: spec.management.apiAllowedCidrs, sshAllowedCidrs: spec.management.sshAllowedCidrs, apiPort: MANAGEMENT_API_PORT }),
    });
    this.nodeAccessSecurityGroupName = `${name}-node-access`;
    new SecurityGroup(this, 'NodeAccessSecurityGroup', {
      name: this.nodeAccessSecurityGroupName,
      description: 'Workload nodes: SSH and ICMP from the management network',
      rules: nodeAccessRules(spec.network.managementCidr),
    });
    const endpoint = new ManagementEndpoint(this, 'Endpoint', {
      name: `${name}-mgmt`,
      networkId: network.network.id,
      subnetId: network.subnet.id,
      securityGroupIds: [managementGroup.id],
      externalNetworkName: lookups.externalNetworkName,
      associateAfter: [network.routerInterface],
    });
    const pki = new ClusterPki(this, 'Pki', { caCommonName: `${name}-management` });
    const server = this.server(env, lookups, endpoint, pki);
    new FirstBootRecord(this, 'FirstBoot', {
      settings: firstBootSettings(env),
      instanceId: server.instance.id,
      imageName: spec.management.image,
      currentImageId: lookups.imageId,
      environment: env.name,
    });

    this.floatingIp = endpoint.address;
    this.apiEndpoint = `https://${endpoint.address}:${MANAGEMENT_API_PORT}`;
    this.caCertificatePem = pki.caCertificatePem;
    this.adminCertificatePem = pki.adminCertificatePem;
    this.adminKeyPem = pki.adminPrivateKeyPem;
    // Resource attributes rather than the keyed lookups, so other stacks get plain cross-stack outputs.
    this.externalNetworkId = network.router.externalNetworkId;
    this.externalNetworkName = endpoint.floatingIp.pool;
    this.instanceId = server.instance.id;
    this.readyResources = spec.management.waitForReady ? [this.controllerUpgrade(env, pki, this.readinessGate(env, pki, server)).resource] : [server.instance];
    new StackRecord(this, 'StackRecord', { environment: env, role: 'management', outputs: this.outputs() });
  }

  /**
   * Connection details as outputs. In a stack of `ManagementStack` (construct id 'Default', which
   * cdktf leaves out of names) they are `kubeconfig`, `api_endpoint`, …; elsewhere cdktf derives
   * unique names from the construct path, which the stack record gives the commands.
   */
  private outputs(): Record<ManagementOutput, TerraformOutput> {
    // cdktf renders an output's dependsOn as a template string, which Terraform refuses; plain addresses instead.
    const afterAddresses = this.readyResources.map((r) => `${r.terraformResourceType}.${r.friendlyUniqueId}`);
    const after = <T extends TerraformOutput>(output: T): T => {
      output.addOverride('depends_on', afterAddresses);
      return output;
    };
    return {
      api_endpoint: after(new TerraformOutput(this, 'api_endpoint', { value: this.apiEndpoint, description: 'Management Kubernetes API' })),
      // not secret, but a PEM block in every deploy's summary is noise: `terraform output -json` has it
      ca_certificate: new TerraformOutput(this, 'ca_certificate', { value: this.caCertificatePem, sensitive: true, description: 'CA of the management cluster (PEM)' }),
      admin_certificate: new TerraformOutput(this, 'admin_certificate', { value: this.adminCertificatePem, sensitive: true, description: 'Admin client certificate (PEM)' }),
      admin_key: new TerraformOutput(this, 'admin_key', { value: this.adminKeyPem, sensitive: true, description: 'Admin client key (PEM)' }),
      kubeconfig: after(
        new TerraformOutput(this, 'kubeconfig', {
          sensitive: true,
          description: 'Kubeconfig of the management cluster (admin)',
          value: renderKubeconfig({
            clusterName: TerraformStack.of(this).node.id,
            server: this.apiEndpoint,
            caCertificateBase64: Fn.base64encode(this.caCertificatePem),
            clientCertificateBase64: Fn.base64encode(this.adminCertificatePem),
            clientKeyBase64: Fn.base64encode(this.adminKeyPem),
          }),
        }),
      ),
      floating_ip: new TerraformOutput(this, 'floating_ip', { value: this.floatingIp, description: 'Public address of the management VM' }),
      instance_id: new TerraformOutput(this, 'instance_id', { value: this.instanceId }),
    };
  }

  /** The VM, with the cloud-init that turns it into the management cluster. */
  private server(env: EnvironmentConfig, lookups: CloudLookups, endpoint: ManagementEndpoint, pki: ClusterPki): ManagementServer {
    const spec = env.spec;
    const userData = renderManagementUserData(
      managementUserDataProps(
        env,
        {
          apiServerAddress: endpoint.address,
          fixedAddress: endpoint.fixedAddress,
          caCertificatePemBase64: Fn.base64encode(pki.caCertificatePem),
          caPrivateKeyPemBase64: Fn.base64encode(pki.caPrivateKeyPem),
        },
        MANAGEMENT_API_PORT,
      ),
    );
    return new ManagementServer(this, 'Server', {
      name: `${env.resourcePrefix}-mgmt`,
      portId: endpoint.port.id,
      flavorId: lookups.flavorId,
      imageId: lookups.imageId,
      userData,
      bootVolumeSizeGb: spec.management.bootVolumeSizeGb,
      bootVolumeType: spec.management.bootVolumeType,
      availabilityZone: spec.availabilityZone,
      metadata: spec.management.metadata,
      sshPublicKey: spec.management.sshPublicKey,
    });
  }

  /** Upgrades the running controllers in place when `versions` change (after the gate: the API answers). */
  private controllerUpgrade(env: EnvironmentConfig, pki: ClusterPki, gate: ReadinessGate): ControllerUpgrade {
    const v = env.spec.versions;
    const store = env.spec.stateBackend;
    // local backups sit in the project directory (cdktf runs the app there)
    return new ControllerUpgrade(this, 'ControllerUpgrade', {
      server: this.apiEndpoint,
      caCertificatePem: pki.caCertificatePem,
      clientCertificatePem: pki.adminCertificatePem,
      clientKeyPem: pki.adminPrivateKeyPem,
      environment: env.name,
      clusterApiVersion: v.clusterApi,
      capoVersion: v.capo,
      caaphVersion: v.caaph,
      providerManifests: pinnedManifests(env.spec),
      backup: store
        ? { s3: { endpoint: store.endpoint, bucket: store.bucket, region: store.region, prefix: `${store.keyPrefix ?? env.name}/backups/` } }
        : { dir: pathFromStackDir(this, path.join(process.cwd(), 'backups')) },
      dependsOn: [gate.resource],
      readyTimeoutMinutes: env.spec.management.readyTimeoutMinutes,
    });
  }

  /** Waits (bounded) until the management cluster accepts CAPI objects. */
  private readinessGate(env: EnvironmentConfig, pki: ClusterPki, server: ManagementServer): ReadinessGate {
    return new ReadinessGate(this, 'Ready', {
      server: this.apiEndpoint,
      caCertificatePem: pki.caCertificatePem,
      clientCertificatePem: pki.adminCertificatePem,
      clientKeyPem: pki.adminPrivateKeyPem,
      triggers: { instance: server.instance.id },
      timeoutMinutes: env.spec.management.readyTimeoutMinutes,
    });
  }
}
