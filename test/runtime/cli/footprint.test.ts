/** `footprint`: SCS flavor sizes and the resources an environment consumes. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { computeFootprint, Footprint } from '../../../lib/runtime/cli/footprint/footprint';
import { flavorSize } from '../../../lib/runtime/cli/footprint/flavor';
import { parseEnvironment } from '../../../lib/config/load';
import { ROOT, runCliProcess } from './support/cli-process';

const exampleText = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');

describe('SCS flavor names', () => {
  test.each([
    ['SCS-2V-4', { vcpus: 2, ramGiB: 4, diskGb: 0 }],
    ['SCS-2V-4-20s', { vcpus: 2, ramGiB: 4, diskGb: 20 }],
    ['SCS-4V-16-50s', { vcpus: 4, ramGiB: 16, diskGb: 50 }],
    ['SCS-1L-1', { vcpus: 1, ramGiB: 1, diskGb: 0 }],
    ['SCS-1V-0.5', { vcpus: 1, ramGiB: 0.5, diskGb: 0 }],
    ['SCS-8C-32-100p', { vcpus: 8, ramGiB: 32, diskGb: 100 }],
    ['SCS-16T-64-3x100p_z3h', { vcpus: 16, ramGiB: 64, diskGb: 300 }],
    ['SCS-2Vi-8u-20n', { vcpus: 2, ramGiB: 8, diskGb: 20 }],
    ['SCS-2V:4:20s', { vcpus: 2, ramGiB: 4, diskGb: 20 }], // v1 spelling
    ['SCS-1V:4', { vcpus: 1, ramGiB: 4, diskGb: 0 }],
  ])('%s', (name, size) => {
    expect(flavorSize(name)).toEqual(size);
  });

  test.each(['m1.large', 'SCS-2X-4', 'scs-2v-4', 'SCS-2V', 'SCS-V-4', ''])('%s has no known size', (name) => {
    expect(flavorSize(name)).toBeUndefined();
  });
});

function footprintOf(text: string, name = 'example'): Footprint {
  return computeFootprint(parseEnvironment(text, `/nonexistent/${name}.yaml`));
}

const total = (fp: Footprint, resource: string) => fp.totals.find((t) => t.resource === resource)!;

describe('footprint of environments/example.yaml', () => {
  const fp = footprintOf(exampleText);

  test('servers: management VM + 1 control plane + 3 workers, all SCS-2V-4(-20s)', () => {
    expect(fp.rows.filter((r) => r.resource === 'server')).toEqual([
      { scope: 'management', resource: 'server', detail: 'management VM SCS-2V-4', count: 1, vcpus: 2, ramGiB: 4 },
      { scope: 'demo', resource: 'server', detail: 'control plane SCS-2V-4-20s', count: 1, vcpus: 2, ramGiB: 4 },
      { scope: 'demo', resource: 'server', detail: 'workers md-0 SCS-2V-4-20s', count: 3, vcpus: 6, ramGiB: 12 },
    ]);
    expect(total(fp, 'server')).toEqual({ resource: 'server', count: 5, vcpus: 10, ramGiB: 20, incomplete: false });
  });

  test('every resource kind', () => {
    const counts = Object.fromEntries(fp.totals.map((t) => [t.resource, t.count]));
    expect(counts).toEqual({
      server: 5,
      volume: 1, // boot volume of the management VM; the nodes boot from their 20 GB flavor disks
      'floating IP': 2, // management VM + API of demo
      'load balancer': 1, // API of demo: a new file (featureFlags.ingressNginxOffByDefault) has no ingress-nginx
      'server group': 2, // control plane (hard) + md-0 (soft)
      'security group': 4, // mgmt + node-access, CAPO control plane + worker
      network: 2,
      router: 2,
      'application credential': 1, // the cluster's own (the management VM needs none)
    });
    expect(total(fp, 'volume').volumeGb).toBe(30);
    expect(fp.unknownFlavors).toEqual([]);
  });

  test('table output: header, rows, totals', () => {
    const r = runCliProcess(['footprint', 'example'], ROOT);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Footprint of environment example (environments/example.yaml, cloud mycloud, resources named capi-example-*)');
    expect(lines[2]).toMatch(/^SCOPE +RESOURCE +DETAIL +COUNT +VCPU +RAM GiB +VOLUME GB$/);
    expect(lines).toContainEqual(expect.stringMatching(/^total +server +5 +10 +20$/));
    expect(lines).toContainEqual(expect.stringMatching(/^total +volume +1 +30$/));
    expect(lines).toContainEqual(expect.stringMatching(/^total +floating IP +2$/));
    expect(lines.filter((l) => l.includes('ingress-nginx'))).toEqual([]);
  });

  test('a file written before featureFlags still gets ingress-nginx by default: its load balancer is counted, and warned about', () => {
    const old = exampleText.replace(/^featureFlags:\n.*\n/m, '');
    expect(old).not.toContain('featureFlags');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-footprint-'));
    fs.writeFileSync(path.join(dir, 'old.yaml'), old);
    const r = runCliProcess(['footprint', path.join(dir, 'old.yaml')], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toContainEqual(expect.stringMatching(/^demo +load balancer +ingress-nginx \(Octavia, OCCM\) +1$/));
    expect(r.stderr).toMatch(/^warning: .*old\.yaml:\d+:\d+: clusters\.demo\.addons\.ingressNginx: ingress-nginx \(cluster "demo"\) is retired upstream .*\. It is on by the default of files without featureFlags\.ingressNginxOffByDefault/m);
  });

  test('--json is the same data', async () => {
    const io = memoryIo(ROOT);
    expect(await runCli(['footprint', 'environments/example.yaml', '--json'], io)).toBe(0);
    const data = JSON.parse(io.stdout.join('\n')) as Footprint;
    expect(data.totals).toEqual(fp.totals);
    expect(data.rows).toEqual(fp.rows);
  });
});

describe('footprint rules', () => {
  const variant = (from: string, to: string) => {
    expect(exampleText).toContain(from);
    return exampleText.replace(from, to);
  };

  test('diskless flavors get a 25 GB root volume per machine; rootVolumeSizeGb wins', () => {
    const text = variant('      - name: md-0\n        count: 3\n        flavor: SCS-2V-4-20s', '      - name: md-0\n        count: 3\n        flavor: SCS-4V-8\n      - name: big\n        count: 2\n        flavor: SCS-4V-8\n        rootVolumeSizeGb: 100');
    const fp = footprintOf(text);
    expect(fp.rows.filter((r) => r.resource === 'volume' && r.scope === 'demo')).toEqual([
      { scope: 'demo', resource: 'volume', detail: 'root volumes workers md-0 (SCS-4V-8 has no disk)', count: 3, volumeGb: 75 },
      { scope: 'demo', resource: 'volume', detail: 'root volumes workers big', count: 2, volumeGb: 200 },
    ]);
    expect(total(fp, 'volume')).toMatchObject({ count: 6, volumeGb: 305 });
    expect(total(fp, 'server group').count).toBe(3);
  });

  test('unknown flavors show ? and make the totals lower bounds', async () => {
    const text = variant('  flavor: SCS-2V-4\n', '  flavor: m1.medium\n');
    const fp = footprintOf(text);
    expect(fp.rows[0]).toMatchObject({ detail: 'management VM m1.medium', vcpus: null, ramGiB: null });
    expect(total(fp, 'server')).toEqual({ resource: 'server', count: 5, vcpus: 8, ramGiB: 16, incomplete: true });
    expect(fp.unknownFlavors).toEqual(['m1.medium']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-footprint-'));
    fs.writeFileSync(path.join(dir, 'lab.yaml'), text);
    const io = memoryIo(dir);
    expect(await runCli(['footprint', path.join(dir, 'lab.yaml')], io)).toBe(0);
    const out = io.stdout.join('\n');
    expect(out).toMatch(/^management +server +management VM m1\.medium +1 +\? +\?$/m);
    expect(out).toMatch(/^total +server +5 +8\+\? +16\+\?$/m);
    expect(out).toContain('? = size unknown: m1.medium is not an SCS flavor name');
  });

  test('internal-only API keeps its floating IP; no ingress → one load balancer; no anti-affinity → no server groups', () => {
    const text = variant('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: [none]\n    controlPlane: { antiAffinity: none }')
      .replace('    controlPlane:\n      count: 1\n      flavor: SCS-2V-4-20s\n', '')
      .replace('        flavor: SCS-2V-4-20s\n', '        flavor: SCS-2V-4-20s\n        antiAffinity: none\n')
      .replace('      flux: false', '      flux: false\n      ingressNginx: false');
    const fp = footprintOf(text);
    expect(fp.rows.find((r) => r.scope === 'demo' && r.resource === 'floating IP')?.detail).toContain('internal-only');
    expect(total(fp, 'load balancer').count).toBe(1);
    expect(total(fp, 'server group').count).toBe(0);
  });

  test('a cluster with controlPlane.count 0 consumes nothing and is named', () => {
    const fp = footprintOf(variant('    controlPlane:\n      count: 1', '    controlPlane:\n      count: 0'));
    expect(fp.rows.some((r) => r.scope === 'demo')).toBe(false);
    expect(fp.skippedClusters).toEqual(['demo']);
    expect(total(fp, 'server').count).toBe(1);
  });

  test('an invalid environment prints the loader message, exit 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-footprint-'));
    fs.writeFileSync(path.join(dir, 'bad.yaml'), exampleText.replace('count: 3', 'count: many'));
    const io = memoryIo(dir);
    expect(await runCli(['footprint', path.join(dir, 'bad.yaml')], io)).toBe(1);
    expect(io.stderr.join('\n')).toMatch(/^Invalid environment file .*bad\.yaml \(1 problem\):\n  .*bad\.yaml:\d+:\d+: clusters\.demo\.nodeGroups\[0\]\.count: expected a number, found "many"$/);
  });

  test('a workload API open by default gets one warning line on stderr; the table is unchanged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-footprint-'));
    fs.writeFileSync(path.join(dir, 'open.yaml'), exampleText.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: []'));
    fs.writeFileSync(path.join(dir, 'said.yaml'), exampleText.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: [0.0.0.0/0]'));
    const open = memoryIo(dir);
    expect(await runCli(['footprint', path.join(dir, 'open.yaml')], open)).toBe(0);
    // the example shares one project (no management.cloud): warned about in both, see management-project.test.ts
    const unpinned = (file: string) => expect.stringMatching(new RegExp(`^warning: .*${file}\\.yaml:\\d+:\\d+: management\\.providerManifests: not set: `));
    const shared = (file: string) => expect.stringMatching(new RegExp(`^warning: .*${file}\\.yaml:\\d+:\\d+: management\\.cloud: the management VM and its boot volume`));
    expect(open.stderr).toEqual([unpinned('open'), shared('open'), expect.stringMatching(/^warning: .*open\.yaml:\d+:\d+: clusters\.demo\.apiAllowedCidrs: the Kubernetes API of cluster "demo" is reachable from anywhere/)]);
    const said = memoryIo(dir);
    expect(await runCli(['footprint', path.join(dir, 'said.yaml')], said)).toBe(0);
    expect(said.stderr).toEqual([unpinned('said'), shared('said')]);
    expect(said.stdout.join('\n').replace(/said/g, 'open')).toEqual(open.stdout.join('\n'));
  });
});
