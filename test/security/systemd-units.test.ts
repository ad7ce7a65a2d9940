/**
 * Every systemd unit and drop-in we write, on the workload nodes and on the management VM, read by
 * systemd itself (`systemd-analyze verify`, Debian package systemd) with values holding `%`: systemd
 * expands specifiers, so an undoubled `%7E` in a proxy URL made it drop the whole Environment= line
 * ("Failed to resolve specifiers … ignoring") and a `%n` would become the unit's name. systemd has
 * no offline dump of the parsed values, so the values are also read back the way systemd unquotes
 * them: each word of Environment=, `%%` as `%`, no other `%` left.
 */
import * as fs from 'fs';
import * as path from 'path';
import { gunzipSync } from 'zlib';
import { parse } from 'yaml';
import { KubeObject, buildClusterObjects } from '../../lib/capi';
import { renderManagementUserData } from '../../lib/management-vm';
import { inputsFor, makeEnv } from '../capi/fixtures';
import { baseProps, itWithTool, run, tempDir } from '../management-vm/helpers';
import { systemdEnvironment } from '../support/node-user-data';

const PROXIES = ['http://proxy.example:3128/%7E', 'http://proxy.example:3128/%n%h%%', 'http://proxy.example:3128/100%'];
const SYSTEMD_DIR = '/etc/systemd/system/';

/** What the builders write under /etc/systemd/system with a proxy and etcdUnsafeFilesystem (the tests take every file found there). */
const EVERY_UNIT = [
  'node (control plane) /etc/systemd/system/capi-metadata-block.service',
  'node (control plane) /etc/systemd/system/containerd.service.d/http-proxy.conf',
  'node (control plane) /etc/systemd/system/kubelet.service.d/http-proxy.conf',
  'node (control plane) /etc/systemd/system/etcd-maintenance.service',
  'node (control plane) /etc/systemd/system/etcd-maintenance.timer',
  'node (control plane) /etc/systemd/system/etcd-unsafe-fs.service',
  'node (workers) /etc/systemd/system/capi-metadata-block.service',
  'node (workers) /etc/systemd/system/containerd.service.d/http-proxy.conf',
  'node (workers) /etc/systemd/system/kubelet.service.d/http-proxy.conf',
  'management VM /etc/systemd/system/docker.service.d/http-proxy.conf',
  'management VM /etc/systemd/system/capi-metadata-block-early.service',
  'management VM /etc/systemd/system/capi-metadata-block.service',
];

interface UnitFile {
  readonly where: string;
  readonly path: string;
  readonly content: string;
}

function nodeUnits(proxy: string): UnitFile[] {
  const env = makeEnv(`proxy:\n  httpProxy: "${proxy}"\n  noProxy: [".corp.example"]\nclusters:\n  demo:\n    controlPlane: {etcdUnsafeFilesystem: true}\n`);
  const objs = buildClusterObjects(inputsFor(env, 'demo'));
  const specs: [string, any][] = [
    ['control plane', (objs.find((o: KubeObject) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec],
    ['workers', (objs.find((o: KubeObject) => o.kind === 'KubeadmConfigTemplate')!.spec as any).template.spec],
  ];
  return specs.flatMap(([where, spec]) =>
    (spec.files as { path: string; content: string; encoding?: string }[])
      .filter((f) => f.path.startsWith(SYSTEMD_DIR))
      .map((f) => ({ where: `node (${where})`, path: f.path, content: f.encoding ? gunzipSync(Buffer.from(f.content, 'base64')).toString('utf8') : f.content })),
  );
}

function vmUnits(proxy: string): UnitFile[] {
  const doc = parse(renderManagementUserData(baseProps({ httpProxy: proxy, noProxy: ['.corp.example'] })));
  return (doc.write_files as { path: string; content: string }[]).filter((f) => f.path.startsWith(SYSTEMD_DIR)).map((f) => ({ where: 'management VM', path: f.path, content: f.content }));
}

/** Lines of `systemd-analyze verify` about our files (it also reports the host's own units). */
function verify(units: UnitFile[]): string[] {
  const root = tempDir('systemd-units-');
  const dir = path.join(root, 'system');
  for (const u of units) {
    const file = path.join(dir, u.path.slice(SYSTEMD_DIR.length));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, u.content);
  }
  // drop-ins need their unit: a stand-in where the unit is not ours (containerd, kubelet, docker)
  for (const d of fs.readdirSync(dir).filter((n) => n.endsWith('.d'))) {
    const unit = path.join(dir, d.slice(0, -2));
    if (!fs.existsSync(unit)) fs.writeFileSync(unit, '[Service]\nType=oneshot\nExecStart=/bin/true\n');
  }
  const mains = fs.readdirSync(dir).filter((n) => !n.endsWith('.d')).map((n) => path.join(dir, n));
  const r = run('systemd-analyze', ['verify', '--man=no', ...mains]);
  return (r.stdout + r.stderr).split('\n').filter((l) => l.includes(root) || /specifier/i.test(l));
}

describe('systemd units and drop-ins', () => {
  const check = itWithTool('systemd-analyze', 'systemd');

  test.each(PROXIES)('the proxy %s reads back from every Environment= line as written', (proxy) => {
    const all = [...nodeUnits(proxy), ...vmUnits(proxy)];
    expect(all.map((u) => `${u.where} ${u.path}`)).toEqual(expect.arrayContaining(EVERY_UNIT));
    const units = all.filter((u) => u.content.includes('Environment='));
    expect(units.length).toBe(5);
    for (const u of units) {
      const vars = systemdEnvironment(u.content);
      expect({ unit: `${u.where} ${u.path}`, HTTP_PROXY: vars.HTTP_PROXY, HTTPS_PROXY: vars.HTTPS_PROXY }).toEqual({ unit: `${u.where} ${u.path}`, HTTP_PROXY: proxy, HTTPS_PROXY: proxy });
      if (u.where.startsWith('node')) expect(vars.http_proxy).toBe(proxy);
    }
  });

  check.each(PROXIES)('systemd reads every unit file without a complaint (proxy %s)', (proxy) => {
    for (const units of [nodeUnits(proxy).filter((u) => u.where.includes('control plane')), nodeUnits(proxy).filter((u) => u.where.includes('workers')), vmUnits(proxy)]) {
      expect({ units: units.map((u) => u.path), complaints: verify(units) }).toEqual({ units: units.map((u) => u.path), complaints: [] });
    }
  });

  check('systemd-analyze reports an unresolvable specifier (the check above can fail)', () => {
    const complaints = verify([{ where: 'test', path: '/etc/systemd/system/x.service.d/p.conf', content: '[Service]\nEnvironment="HTTP_PROXY=http://p:3128/%7E"\n' }]);
    expect(complaints.join('\n')).toMatch(/Failed to resolve specifiers/);
  });
});
