/**
 * The environment's warnings (an open workload API, a Kubernetes minor near or past its end of
 * life, a management port open to anywhere) reach any app through cdktf annotations on the
 * construct they concern, so `cdktf synth` prints them with the construct path; the ready-made app,
 * which prints them itself before synthesis, does not get them twice (issue 37).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp, ManagementCluster, WorkloadCluster, clusterNamed, environmentFromObject } from '../../lib';
import { environment, environmentYaml, managementStack, synthApp, workloadStack } from './support';

// the printer of `cdktf synth` (cdktf-cli's own code), fed the manifest the app wrote
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { printAnnotations } = require('@cdktf/cli-core/src/lib/synth') as { printAnnotations(stacks: unknown[]): void };

const ROOT = path.resolve(__dirname, '..', '..');
const WARN = '@cdktf/warn';

function printed(manifest: { stacks: Record<string, unknown> }): string[] {
  const spy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    printAnnotations(Object.values(manifest.stacks));
    // chalk colours only on a terminal
    return spy.mock.calls.map((c) => String(c[0]));
  } finally {
    spy.mockRestore();
  }
}

describe('warnings as cdktf annotations', () => {
  const acme = environment(environmentYaml('management:\n  sshAllowedCidrs: [0.0.0.0/0]\nclusters:\n  web:\n    kubernetesVersion: v1.33.x\n  api:\n    apiAllowedCidrs: [198.51.100.0/24]\n'), 'acme');

  test("a team's own app: each warning on the construct it concerns, printed by cdktf synth with its path", () => {
    expect(acme.warnings.map((w) => w.path)).toEqual(['management.sshAllowedCidrs', 'management.providerManifests', 'management.cloud', 'clusters.web.kubernetesVersion', 'clusters.web.apiAllowedCidrs', 'clusters.web.addons.ingressNginx', 'clusters.api.addons.ingressNginx']);
    const r = synthApp((app) => {
      const management = new ManagementCluster(managementStack(app, 'platform'), 'Management', { environment: acme });
      for (const name of ['web', 'api']) new WorkloadCluster(workloadStack(app, name, management), 'Cluster', { environment: acme, cluster: clusterNamed(acme, name), management: { kind: 'created', cluster: management } });
    });
    expect(r.error).toBe('(no error)');
    const stacks = r.manifest!.stacks;
    expect(stacks.platform.annotations.map((a) => [a.constructPath, a.level, a.message])).toEqual([
      ['platform/Management', WARN, expect.stringMatching(/^environments\/acme\.yaml:\d+:\d+: management\.sshAllowedCidrs: \["0\.0\.0\.0\/0"\] covers every address: SSH to the management VM is reachable from anywhere/)],
      ['platform/Management', WARN, expect.stringMatching(/^environments\/acme\.yaml(:\d+:\d+)?: management\.providerManifests: not set: .* without a checksum/)],
      ['platform/Management', WARN, expect.stringMatching(/^environments\/acme\.yaml(:\d+:\d+)?: management\.cloud: the management VM and its boot volume .* share the project of cloud\.name's entry "testcloud"/)],
    ]);
    expect(stacks.web.annotations.map((a) => [a.constructPath, a.level, a.message])).toEqual([
      ['web/Cluster', WARN, expect.stringMatching(/^environments\/acme\.yaml:\d+:\d+: clusters\.web\.kubernetesVersion: Kubernetes v1\.33 reached its end of life on 2026-06-28/)],
      ['web/Cluster', WARN, expect.stringMatching(/^environments\/acme\.yaml:\d+:\d+: clusters\.web\.apiAllowedCidrs: the Kubernetes API of cluster "web" is reachable from anywhere \(the default\)/)],
      ['web/Cluster', WARN, expect.stringMatching(/^environments\/acme\.yaml:\d+:\d+: clusters\.web\.addons\.ingressNginx: ingress-nginx \(cluster "web"\) is retired upstream .*\. It is on by the default of files without featureFlags\.ingressNginxOffByDefault/)],
    ]);
    // a file without featureFlags: ingress-nginx by the old default, warned on the construct of each cluster
    expect(stacks.api.annotations.map((a) => [a.constructPath, a.level, a.message])).toEqual([
      ['api/Cluster', WARN, expect.stringMatching(/^environments\/acme\.yaml:\d+:\d+: clusters\.api\.addons\.ingressNginx: ingress-nginx \(cluster "api"\) is retired upstream .*\. It is on by the default/)],
    ]);
    const lines = printed(r.manifest!);
    expect(lines).toHaveLength(7);
    expect(lines).toContainEqual(expect.stringMatching(/^WARN \[web\/Cluster\]: environments\/acme\.yaml:\d+:\d+: clusters\.web\.apiAllowedCidrs: /));
    expect(lines).toContainEqual(expect.stringMatching(/^WARN \[platform\/Management\]: environments\/acme\.yaml:\d+:\d+: management\.sshAllowedCidrs: /));
  });

  test('an environment built in code: the field path, without a line', () => {
    const env = environmentFromObject('acme', { cloud: { name: 'mycloud' }, management: { apiAllowedCidrs: ['198.51.100.0/24'] }, clusters: { web: {} } });
    const r = synthApp((app) => new WorkloadCluster(workloadStack(app, 'web', undefined, 'mycloud'), 'Web', { environment: env, cluster: clusterNamed(env, 'web'), management: { kind: 'existing' } }));
    expect(r.manifest!.stacks.web.annotations.map((a) => a.message)).toEqual([
      expect.stringMatching(/^"acme" \(given in code\): clusters\.web\.apiAllowedCidrs: the Kubernetes API of cluster "web" is reachable from anywhere/),
      expect.stringMatching(/^"acme" \(given in code\): clusters\.web\.addons\.ingressNginx: ingress-nginx \(cluster "web"\) is retired upstream .*\. It is on by the default/),
    ]);
  });

  test('EnvironmentsApp keeps its output: one line per warning before synthesis, no annotation repeating it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-annotations-'));
    try {
      const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');
      fs.writeFileSync(path.join(dir, 'lab.yaml'), example.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: []'));
      const lines: string[] = [];
      const envApp = new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir: path.join(dir, 'out') }, onWarning: (l) => lines.push(l) });
      envApp.synth();
      expect(lines).toEqual([
        expect.stringMatching(/^warning: .*lab\.yaml:\d+:\d+: management\.providerManifests: not set: /),
        expect.stringMatching(/^warning: .*lab\.yaml:\d+:\d+: management\.cloud: the management VM and its boot volume /),
        expect.stringMatching(/^warning: .*lab\.yaml:\d+:\d+: clusters\.demo\.apiAllowedCidrs: the Kubernetes API of cluster "demo" is reachable from anywhere/),
      ]);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'manifest.json'), 'utf8'));
      expect(Object.values(manifest.stacks).flatMap((s: any) => s.annotations)).toEqual([]);
      expect(printed(manifest)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
