/**
 * Seeded generators of hostile environment files, one per class of value that once passed
 * `validate` and then broke synth: MTUs, registry mirrors, proxy ports, NO_PROXY sizes, CIDR and
 * pool sizes, Kubernetes versions with and without pinned charts, node label sizes, DNS servers,
 * non-canonical addresses, user names.
 * Each returns the YAML of a whole environment; values cluster around each rule's edges.
 */
import { stringify } from 'yaml';
import { DEPLOY_CIDR } from './deploy-access';

type Random = () => number;
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Random, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
const letters = (r: Random, n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 36)]).join('');
/** One of the edges, or anything in between. */
const edgy = (r: Random, edges: readonly number[], min: number, max: number) => (r() < 0.7 ? pick(r, edges) : int(r, min, max));

interface Shape {
  network?: Record<string, unknown>;
  management?: Record<string, unknown>;
  proxy?: Record<string, unknown>;
  registryMirrors?: unknown[];
  cluster?: Record<string, unknown>;
}

function environmentText(s: Shape): string {
  return stringify({
    cloud: { name: 'fuzzcloud', authUrl: 'https://keystone.test:5000/v3', region: 'RegionOne' },
    network: { externalNetworkName: 'public', ...s.network },
    management: { apiAllowedCidrs: [DEPLOY_CIDR], ...s.management },
    ...(s.proxy ? { proxy: s.proxy } : {}),
    ...(s.registryMirrors ? { registryMirrors: s.registryMirrors } : {}),
    clusters: { demo: { apiAllowedCidrs: [DEPLOY_CIDR], ...s.cluster } },
  }, { lineWidth: 0 });
}

const port = (r: Random) => pick(r, ['', ':0', ':1', ':443', ':65535', ':65536', ':99999', `:${int(r, 1, 70000)}`]);

export const HOSTILE_GENERATORS: Record<string, (r: Random) => string> = {
  mtu: (r) => environmentText({ network: { mtu: edgy(r, [0, 1, 68, 575, 576, 577, 1500, 8999, 9000, 9001], -10, 10000) } }),
  registryMirrors: (r) =>
    environmentText({
      registryMirrors: Array.from({ length: int(r, 1, 3) }, () => ({
        registry: pick(r, ['docker.io', 'ghcr.io', 'quay.io', 'registry.example.com:5000', `registry.example.com${port(r)}`]),
        endpoints: Array.from({ length: int(r, 1, 2) }, () => `https://mirror.example.com${port(r)}/v2`),
      })),
    }),
  proxy: (r) => {
    const count = pick(r, [0, 1, 10, 100, 200, 300, 2000]);
    const length = pick(r, [3, 12, 40]);
    return environmentText({ proxy: { httpProxy: `http://proxy.example.com${port(r)}`, noProxy: Array.from({ length: count }, () => `${letters(r, length)}.example.com`) } });
  },
  managementCidr: (r) => {
    const prefix = int(r, 16, 30);
    const pool = r() < 0.5 ? {} : { allocationPoolStart: `10.0.0.${edgy(r, [0, 1, 2, 11, 254, 255], 0, 255)}`, allocationPoolEnd: `10.0.0.${edgy(r, [1, 10, 11, 254, 255], 0, 255)}` };
    return environmentText({ network: { managementCidr: `10.0.0.0/${prefix}`, ...pool } });
  },
  clusterCidrs: (r) =>
    environmentText({
      cluster: {
        nodeGroups: [{ name: 'md-0', count: edgy(r, [0, 1, 3, 200, 255, 256, 1000], 0, 1000) }],
        network: { nodeCidr: `10.8.0.0/${int(r, 16, 29)}`, podCidr: `192.168.0.0/${int(r, 16, 25)}`, serviceCidr: `10.96.0.0/${int(r, 12, 25)}` },
      },
    }),
  kubernetesVersion: (r) => {
    const occm = pick(r, [true, false, { version: '2.30.3' }, { enabled: true }]);
    const cinder = pick(r, [true, false, { version: '2.30.1' }]);
    return environmentText({ cluster: { kubernetesVersion: `v1.${int(r, 28, 36)}.x`, addons: { openstackCloudControllerManager: occm, cinderCsi: cinder } } });
  },
  nodeLabels: (r) => {
    const count = pick(r, [1, 2, 10, 40, 100]);
    const value = pick(r, [1, 10, 63]);
    return environmentText({ cluster: { nodeGroups: [{ name: 'md-0', labels: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, letters(r, value)])) }] } });
  },
  dnsServers: (r) => environmentText({ network: { dnsNameservers: Array.from({ length: int(r, 0, 7) }, () => `192.0.2.${pick(r, [1, 1, 2, 3, 53])}`) } }),
  addresses: (r) => environmentText({ network: { managementCidr: r() < 0.4 ? '10.0.0.0/24' : pick(r, ['010.0.0.0/24', '10.0.0.0/24\n', ' 10.0.0.0/24', '10.0.0.0/024', '172.17.0.0/24', '127.0.0.0/24']) } }),
  sshUsername: (r) => environmentText({ management: { sshUsername: pick(r, ['ubuntu', 'Admin', '', '_x', '1abc', 'a'.repeat(32), 'a'.repeat(33), 'deb-ian', 'root']) } }),
};
