/** Environment fixtures for the CAPI and add-on builder tests (real config loader, temp files for PEMs). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfig, ResolvedCluster, parseEnvironment } from '../../lib/config';
import { WorkloadClusterInputs } from '../../lib/capi';
import { withDeployAccess } from '../support/deploy-access';

/** A self-signed test CA (public data; only its shape matters here). */
export const TEST_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBeTCCAR+gAwIBAgIUQ2FwaU9wZW5TdGFja1Rlc3RDQTAKBggqhkjOPQQDAjAS
MRAwDgYDVQQDDAd0ZXN0LWNhMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAw
MFowEjEQMA4GA1UEAwwHdGVzdC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
BEq0dGVzdC1vbmx5LWtleS1tYXRlcmlhbC1ub3QtYS1yZWFsLWtleS0wMTIzNDU2
Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWajUzBRMB0G
A1UdDgQWBBQAAAAAAAAAAAAAAAAAAAAAAAAAADAfBgNVHSMEGDAWgBQAAAAAAAAA
AAAAAAAAAAAAAAAAADAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUC
IQDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIgAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAA=
-----END CERTIFICATE-----
`;

const BASE = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.example.test:5000/v3\n  region: RegionOne\n';

/** Parses an environment from YAML (the `cloud:` block is prepended unless the text has one). */
export function makeEnv(yaml: string, name = 'test'): EnvironmentConfig {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-env-'));
  fs.writeFileSync(path.join(dir, 'ca.pem'), TEST_CA_PEM);
  const text = withDeployAccess(yaml.includes('cloud:') ? yaml : BASE + yaml);
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, text);
  return parseEnvironment(text, file);
}

export function clusterOf(env: EnvironmentConfig, name: string): ResolvedCluster {
  const c = env.clusters.find((x) => x.name === name);
  if (!c) throw new Error(`fixture: no cluster ${name} in ${env.clusters.map((x) => x.name).join(', ')}`);
  return c;
}

export const EXTERNAL_NETWORK_ID = '6f6c8d5c-5c8a-4b36-9b3c-2b1b3f0e0f51';
export const CP_SERVER_GROUP_ID = '0b7e1d7a-3c55-4f5e-8d6c-2f8f5f0f3a11';
export const MD_SERVER_GROUP_ID = '1c8f2e8b-4d66-4a6f-9e7d-3a9a6a1a4b22';

export function inputsFor(env: EnvironmentConfig, clusterName: string, extra: Partial<WorkloadClusterInputs> = {}): WorkloadClusterInputs {
  const cluster = clusterOf(env, clusterName);
  return {
    env,
    cluster,
    apiServerFloatingIp: '203.0.113.10',
    cloudsSecretName: `${clusterName}-cloud-config`,
    externalNetworkId: EXTERNAL_NETWORK_ID,
    managementCidrForApiAccess: '198.51.100.7/32',
    serverGroupIds: {
      controlPlane: CP_SERVER_GROUP_ID,
      // the construct creates server groups only for groups with anti-affinity
      nodeGroups: Object.fromEntries(cluster.spec.nodeGroups.map((g) => [g.name, g.antiAffinity === 'none' ? undefined : MD_SERVER_GROUP_ID])),
    },
    ...extra,
  };
}

/** Representative environments: defaults, a big HA cluster, calico + internal API, OVN + all add-ons, all add-ons off. */
export const REPRESENTATIVE_YAML = `
availabilityZone: az1
network:
  mtu: 1500
proxy:
  httpProxy: http://proxy.example.test:3128
  noProxy: [.example.test, 10.200.0.0/16]
registryMirrors:
  - registry: docker.io
    endpoints: [https://mirror.example.test/v2/dockerhub, https://mirror2.example.test]
    caCertificateFile: ca.pem
  - registry: quay.io
    endpoints: [https://quay-mirror.example.test]
    skipVerify: true
clusters:
  defaults: {}
  big:
    kubernetesVersion: v1.34.x
    controlPlane:
      count: 3
      flavor: SCS-4V-8-50s
      metadata: { team: platform, tier: control }
      etcdUnsafeFilesystem: true
    failureDomains: [az1, az2, az3]
    nodeGroups:
      - name: md-0
        count: 4
        flavor: SCS-4V-16
        failureDomain: az2
        metadata: { team: platform }
        labels: { node-role.kubernetes.io/worker: "", example.test/pool: general }
      - name: gpu
        count: 2
        flavor: gpu.large
        rootVolumeSizeGb: 100
        antiAffinity: none
    network:
      nodeCidr: 10.10.0.0/20
      podCidr: 172.16.0.0/16
      serviceCidr: 10.112.0.0/12
    apiAllowedCidrs: [192.0.2.0/24]
    machineHealthCheck:
      unhealthyAfterMinutes: 7
      nodeStartupTimeoutMinutes: 30
      maxUnhealthyPercent: 34
    addons:
      certManager: true
      flux: true
  calico:
    kubernetesVersion: v1.33.x
    apiAllowedCidrs: [none]
    addons:
      cni: { type: calico }
  ovn:
    ovnLoadBalancer: true
    addons:
      certManager: true
      flux: true
      gatewayApi: { enabled: true, version: 1.3.0-crds-only }
  bare:
    ovnLoadBalancer: auto
    machineHealthCheck: { enabled: false }
    nodeGroups: []
    addons:
      openstackCloudControllerManager: false
      cinderCsi: false
      metricsServer: false
      ingressNginx: false
`;

export function representativeEnv(): EnvironmentConfig {
  return makeEnv(REPRESENTATIVE_YAML + 'cloud:\n  name: mycloud\n  authUrl: https://keystone.example.test:5000/v3\n  region: RegionOne\n  caCertificateFile: ca.pem\n');
}
