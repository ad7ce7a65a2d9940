/**
 * Seeded generators of hostile environment files, one per class of value that once passed
 * `validate` and then broke synth: MTUs, registry mirrors, proxy ports, NO_PROXY sizes, CIDR and
 * pool sizes, Kubernetes versions with and without pinned charts, node label sizes, DNS servers,
 * non-canonical addresses, user names; and the injection classes: Terraform syntax planted in
 * strings, node labels that would add flags of their own, CA paths that are no regular PEM file;
 * Jinja and systemd specifiers in the values written on the nodes, and user data around Nova's limit
 * (the loader's input classes are in hostile-inputs.ts). Each returns the YAML of a whole
 * environment; values cluster around each rule's edges.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { stringify } from 'yaml';
import { DEPLOY_CIDR } from './deploy-access';
import { fakeCertificates } from './user-data-corpus';

export type Random = () => number;
export const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Random, min: number, max: number) => min + Math.floor(r() * (max - min + 1));
const letters = (r: Random, n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(r() * 36)]).join('');
/** One of the edges, or anything in between. */
const edgy = (r: Random, edges: readonly number[], min: number, max: number) => (r() < 0.7 ? pick(r, edges) : int(r, min, max));

export interface Shape {
  cloud?: Record<string, unknown>;
  network?: Record<string, unknown>;
  management?: Record<string, unknown>;
  proxy?: Record<string, unknown>;
  registryMirrors?: unknown[];
  cluster?: Record<string, unknown>;
}

export function environmentText(s: Shape): string {
  return stringify({
    cloud: { name: 'fuzzcloud', authUrl: 'https://keystone.test:5000/v3', region: 'RegionOne', ...s.cloud },
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

/** What Terraform would evaluate if it reached the JSON unescaped (the tier looks for these markers). */
export const PLANTED_EXPRESSIONS = ['${file("/etc/hostname")}', '%{ if true }x%{ endif }', '${path.cwd}'];

function plantedInto(r: Random, text: string): string {
  const payload = pick(r, PLANTED_EXPRESSIONS);
  return r() < 0.5 ? payload : `${text}${payload}`;
}

/** Files a CA path may name, made once per process: one good certificate and each kind of wrong path. */
let caPaths: Record<string, string> | undefined;
function caPathFixtures(): Record<string, string> {
  if (caPaths) return caPaths;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-ca-'));
  const cert = '-----BEGIN CERTIFICATE-----\nMIIBfakeCERT+/=\n-----END CERTIFICATE-----\n';
  const write = (name: string, content: string) => (fs.writeFileSync(path.join(dir, name), content), path.join(dir, name));
  const fifo = path.join(dir, 'ca.fifo');
  execFileSync('mkfifo', [fifo]);
  caPaths = {
    good: write('good.pem', cert),
    planted: write('planted.pem', `${PLANTED_EXPRESSIONS[0]}\n${cert}${PLANTED_EXPRESSIONS[1]}\n`),
    withKey: write('with-key.pem', `${cert}-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n`),
    empty: write('empty.pem', ''),
    big: write('big.pem', cert + 'x'.repeat(1024 * 1024 + 1)),
    directory: dir,
    device: '/dev/zero',
    fifo,
    missing: path.join(dir, 'missing.pem'),
  };
  return caPaths;
}

Object.assign(HOSTILE_GENERATORS, {
  terraformSyntax: (r: Random) => {
    const field = pick(r, ['metadataValue', 'metadataKey', 'region', 'availabilityZone', 'bootVolumeType', 'flavor', 'image', 'sshKeyComment']);
    const planted = plantedInto(r, 'x');
    const plain = r() < 0.3;
    const value = plain ? 'plain' : planted;
    switch (field) {
      case 'metadataValue': return environmentText({ management: { metadata: { note: value } } });
      case 'metadataKey': return environmentText({ management: { metadata: { [value]: 'x' } } });
      case 'region': return environmentText({ cloud: { region: value } });
      case 'availabilityZone': return environmentText({ management: { availabilityZone: value } });
      case 'bootVolumeType': return environmentText({ management: { bootVolumeType: value } });
      case 'flavor': return environmentText({ management: { flavor: value } });
      case 'image': return environmentText({ management: { image: value } });
      default: return environmentText({ management: { sshPublicKey: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForFuzzingOnly000000000000000000000000 ops@${value}` } });
    }
  },
  labelSyntax: (r: Random) => {
    // about half the groups carry a valid label, so the class tests both sides of the rule
    const labels =
      r() < 0.5
        ? { [pick(r, ['team', 'example.com/team', 'node.kubernetes.io/pool', 'node-role.kubernetes.io/worker'])]: pick(r, ['a', '', 'v'.repeat(63), 'a.b_c-d']) }
        : { [pick(r, ['team', 'a,node-role.kubernetes.io/control-plane=', 'kubernetes.io/hostname', 'k8s.io/x', 'node-role.kubernetes.io/control-plane', '', 'x\ny', '$(id)', 'a'.repeat(64), `${'a'.repeat(254)}/x`])]: pick(r, ['x,y=z', 'a b', '$(id)', 'v'.repeat(64), '-a']) };
    return environmentText({ cluster: { nodeGroups: [{ name: 'md-0', labels }] } });
  },
  caPaths: (r: Random) => {
    const paths = caPathFixtures();
    const which = pick(r, Object.keys(paths));
    return r() < 0.5
      ? environmentText({ cloud: { caCertificateFile: paths[which] } })
      : environmentText({ registryMirrors: [{ registry: 'docker.io', endpoints: ['https://mirror.example.com'], caCertificateFile: paths[which] }] });
  },
});

/** Jinja as it may sit in a URL: Cluster API renders node user data as a Jinja template. */
export const JINJA_PAYLOADS = ['{{7*7}}', '{%print(7*7)%}', '{#', '{{.x}}', '{{config}}', '{%raw%}', '{{', '{', '}}', '{{ 7*7 }}', "{{ '{' }}"];
/** What systemd reads as a specifier in a unit file (or refuses: "%{" is Terraform's). */
export const SPECIFIER_PAYLOADS = ['%7E', '%n', '%h', '%%', '%', '%25', '%{x}', '%i%u'];

/** The classes of values that land in a language with syntax of its own on the nodes: Jinja, systemd specifiers. */
Object.assign(HOSTILE_GENERATORS, {
  jinja: (r: Random) => {
    const payload = pick(r, JINJA_PAYLOADS);
    switch (pick(r, ['proxy', 'mirror', 'noProxy'])) {
      case 'proxy': return environmentText({ proxy: { httpProxy: `http://proxy.example.com:3128/${payload}` } });
      case 'mirror': return environmentText({ registryMirrors: [{ registry: 'quay.io', endpoints: [`https://mirror.example.com/${payload}/v2`] }] });
      default: return environmentText({ proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: [`${payload}.example.com`] } });
    }
  },
  systemdSpecifiers: (r: Random) => {
    const payload = pick(r, SPECIFIER_PAYLOADS);
    return r() < 0.7
      ? environmentText({ proxy: { httpProxy: `http://proxy.example.com:3128/${payload}`, noProxy: ['.corp.example'] } })
      : environmentText({ proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: [`a${payload}b.example.com`] } });
  },
});

/** PEM files of `count` random certificates, one per count, made once per process. */
const pemFiles = new Map<number, string>();
function certificatesFile(r: Random, count: number): string {
  if (!pemFiles.has(count)) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-pem-'));
    fs.writeFileSync(path.join(dir, 'ca.pem'), fakeCertificates(r, count));
    pemFiles.set(count, path.join(dir, 'ca.pem'));
  }
  return pemFiles.get(count)!;
}

/** User data around Nova's limit: trusted CAs for the VM, mirror and OpenStack CAs for the nodes. */
Object.assign(HOSTILE_GENERATORS, {
  userDataSize: (r: Random) => {
    const count = pick(r, [1, 8, 14, 17, 25, 60, 300]);
    switch (pick(r, ['trusted', 'mirrors', 'cloud'])) {
      case 'trusted': return environmentText({ management: { trustedCaCertificateFile: certificatesFile(r, count) } });
      case 'mirrors': return environmentText({ registryMirrors: [0, 1, 2].map((i) => ({ registry: `r${i}.example.com`, endpoints: [`https://m${i}.example.com`], caCertificateFile: certificatesFile(r, Math.ceil(count / 3)) })) });
      default: return environmentText({ cloud: { caCertificateFile: certificatesFile(r, count) } });
    }
  },
});
