import { parse } from 'yaml';
import { CLOUD_CONFIG_RESOURCE_KEY, buildCloudConfigSecret, cinderConfigDir } from '../../lib/addons';
import { EXTERNAL_NETWORK_ID, clusterOf, makeEnv } from '../capi/fixtures';

const CREDENTIAL = { authUrl: 'https://keystone.example.test:5000/v3', applicationCredentialId: 'app-cred-id-123', applicationCredentialSecret: 'secret' };

/** The confs the workload cluster's cloud-config Secret carries. */
function workloadSecret(env: ReturnType<typeof makeEnv>, cluster: string): any {
  const s: any = buildCloudConfigSecret({ env, cluster: clusterOf(env, cluster), credential: CREDENTIAL, externalNetworkId: EXTERNAL_NETWORK_ID });
  return parse(s.stringData[CLOUD_CONFIG_RESOURCE_KEY]);
}

describe('the CA path in the cloud-config Secret', () => {
  test('cloud-csi.conf names the CA where the cluster\'s Cinder CSI chart mounts the Secret: /etc/kubernetes before chart 2.33.0, /etc/config from it', () => {
    const cloud = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.example.test:5000/v3\n  region: RegionOne\n  caCertificateFile: ca.pem\n';
    const csiConf = (chart: string) => {
      const e = makeEnv(`${cloud}clusters:\n  c:\n    addons:\n      cinderCsi: { version: ${chart} }\n`);
      return workloadSecret(e, 'c').stringData['cloud-csi.conf'];
    };
    expect(csiConf('2.32.2')).toContain('ca-file="/etc/kubernetes/ca.crt"');
    expect(csiConf('2.33.0')).toContain('ca-file="/etc/config/ca.crt"');
    expect(csiConf('2.36.4')).toContain('ca-file="/etc/config/ca.crt"');
    expect(cinderConfigDir('2.31.8')).toBe('/etc/kubernetes');
    expect(cinderConfigDir('3.0.0')).toBe('/etc/config');
    // OCCM's chart mounts it at /etc/config on every line
    expect(workloadSecret(makeEnv(`${cloud}clusters:\n  c: {}\n`), 'c').stringData['cloud.conf']).toContain('ca-file="/etc/config/ca.crt"');
  });

  test('without Cinder CSI the Secret renders for a minor that has no Cinder CSI pin (v1.30 with a pinned OCCM)', () => {
    const e = makeEnv('versions:\n  clusterApi: v1.12.10\nclusters:\n  c:\n    kubernetesVersion: v1.30.5\n    addons:\n      openstackCloudControllerManager: { version: 2.30.3 }\n      cinderCsi: false\n', 'old');
    expect(workloadSecret(e, 'c').stringData['cloud.conf']).toContain('[Global]');
  });
});
