/**
 * The npm package as a consumer sees it: `npm pack` of this repository, installed into fresh
 * projects beside the framework packages (peer dependencies), once with the newest `constructs`
 * in range and once pinned to the oldest; a ManagementStack and a WorkloadClusterStack composed in
 * TypeScript that is type-checked against the packaged typings, then synthesized with node.
 *
 * Runs in the e2e tier (npm + tsc + synth take ~30-60 s per consumer): `npm run test:consumer`.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PKG, PackResult, buildConsumer, installedCopies, installedVersion, packRepository } from './helpers/consumer-project';

/** What a consumer writes: under 30 lines, only the package's public API. */
const CONSUMER_MAIN = `import { App } from 'cdktf';
import { ManagementStack, WorkloadClusterStack, environmentFromObject } from 'capi-openstack-cdktf';

// Validated like environments/acme.yaml would be; the name names the stacks.
const environment = environmentFromObject('acme', {
  cloud: { name: 'mycloud', authUrl: 'https://keystone.example.com:5000/v3', region: 'RegionOne' },
  management: { apiAllowedCidrs: ['198.51.100.0/24'], waitForReady: true },
  clusters: { prod: { kubernetesVersion: 'v1.33.x', controlPlane: { count: 3 }, nodeGroups: [{ name: 'md-0', count: 2 }] } },
});

const app = new App();
const management = new ManagementStack(app, 'acme-management', { environment });
const prod = environment.clusters.find((c) => c.name === 'prod')!;
new WorkloadClusterStack(app, 'acme-prod', { environment, cluster: prod, management }).addDependency(management);
app.synth();
`;

interface StackJson {
  readonly resource?: Record<string, Record<string, Record<string, unknown>>>;
  readonly data?: Record<string, Record<string, { readonly config?: { readonly path?: string } }>>;
}

const resourceTypes = (s: StackJson) => Object.keys(s.resource ?? {});
const resources = (s: StackJson, type: string) => Object.values(s.resource?.[type] ?? {});

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-consumer-'));
/** What `npm install constructs@^10.4.2` resolves to today. */
const newestConstructs = execFileSync('npm', ['view', 'constructs@^10.4.2', 'version', '--json'], { encoding: 'utf8' }).trim().split('\n').map((l) => l.replace(/[\[\]",\s]/g, '')).filter(Boolean).pop();
let pack: PackResult;
beforeAll(() => {
  pack = packRepository(work);
}, 5 * 60 * 1000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The `constructs` a consumer may have: any version cdktf accepts (a peer dependency of ours). */
const CONSTRUCTS_CHOICES = [
  ['the newest constructs in range', 'constructs@^10.4.2'],
  ['the oldest constructs in range', 'constructs@10.4.2'],
] as const;

describe.each(CONSTRUCTS_CHOICES)('npm package consumed from a fresh project with %s', (label, constructsSpec) => {
  const consumer = path.join(work, label.replace(/\W+/g, '-'));
  let management: StackJson;
  let prod: StackJson;

  beforeAll(() => {
    const stacks = buildConsumer(consumer, path.join(work, pack.filename), { main: CONSUMER_MAIN, dependencies: [`cdktf@${installedVersion('cdktf')}`, constructsSpec], preferOnline: constructsSpec !== 'constructs@10.4.2' });
    management = stacks['acme-management'];
    prod = stacks['acme-prod'];
  }, 5 * 60 * 1000);

  test("one copy of constructs and of cdktf: the consumer's", () => {
    expect(installedCopies(consumer, 'constructs')).toHaveLength(1);
    expect(installedCopies(consumer, 'cdktf')).toEqual([installedVersion('cdktf')]);
    const [version] = installedCopies(consumer, 'constructs');
    if (constructsSpec === 'constructs@10.4.2') expect(version).toBe('10.4.2');
    else expect(version).toBe(newestConstructs);
  });

  test('the tarball holds compiled JS, typings, bindings, the wait script and the schema; no sources, tests or fixtures', () => {
    const files = pack.files.map((f) => f.path);
    for (const f of [
      'package.json',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lib/config/component-versions.json', // the versions table, read at run time
      'dist/lib/stacks/management-stack.d.ts',
      'dist/lib/gen/openstack/compute-instance-v2/index.js',
      'dist/lib/gen/tls/private-key/index.js',
      'dist/bin/wait-for-management.js',
      'dist/bin/wait-for-control-plane.js', // the workload stacks' control-plane upgrade gate
      'dist/bin/capi-openstack.js',
      'dist/main.js',
      'environments/environment.schema.json',
    ]) {
      expect(files).toContain(f);
    }
    const unexpected = files.filter((f) => /^(test|scripts|schemas|cdktf\.out|node_modules|\.ci|\.github)\//.test(f) || /\.ts$/.test(f.replace(/\.d\.ts$/, '')) || /tsbuildinfo|\.tfstate|\.tgz$/.test(f));
    expect(unexpected).toEqual([]);
    expect(pack.size).toBeLessThan(2 * 1024 * 1024);
  });

  test('the consumer program is under 30 lines and uses the public entry point only', () => {
    expect(CONSUMER_MAIN.trimEnd().split('\n').length).toBeLessThan(30);
    expect(CONSUMER_MAIN).not.toMatch(/capi-openstack-cdktf\//);
  });

  test('the management stack holds the OpenStack side, the minted PKI and the readiness gate, and no credential of its own', () => {
    expect(resourceTypes(management)).toEqual(
      expect.arrayContaining([
        'openstack_compute_instance_v2',
        'openstack_networking_network_v2',
        'openstack_networking_router_v2',
        'openstack_networking_floatingip_v2',
        'tls_private_key',
        'tls_self_signed_cert',
        'terraform_data',
      ]),
    );
    // Each workload cluster mints its own least-privilege credential; the management VM holds none.
    expect(resourceTypes(management)).not.toContain('openstack_identity_application_credential_v3');
  });

  test('the readiness gate runs the wait script from node_modules', () => {
    // the controller upgrade is the other terraform_data with a local-exec (checked with every script below)
    const gate = resources(management, 'terraform_data').find((r) => JSON.stringify((r as { provisioner?: unknown }).provisioner ?? []).includes('wait-for-management')) as
      | { provisioner: { 'local-exec': { command: string } }[] }
      | undefined;
    expect(gate).toBeDefined();
    const command = gate!.provisioner[0]['local-exec'].command;
    const script = /^node "(.+)"$/.exec(command)?.[1];
    expect(script).toBeDefined();
    // Terraform runs local-exec in the stack's working directory.
    const resolved = path.resolve(consumer, 'cdktf.out', 'stacks', 'acme-management', script!);
    expect(fs.realpathSync(resolved)).toBe(fs.realpathSync(path.join(consumer, 'node_modules', PKG.name, 'dist', 'bin', 'wait-for-management.js')));
    // Without its inputs the script refuses with exit 2 and names what is missing.
    const r = spawnSync(process.execPath, [resolved], { cwd: path.dirname(resolved), encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/KUBE_SERVER/);
  });

  test('every script Terraform runs (local-exec) resolves into the installed package', () => {
    const bin = fs.realpathSync(path.join(consumer, 'node_modules', PKG.name, 'dist', 'bin'));
    const scripts: string[] = [];
    for (const [id, stack] of [['acme-management', management], ['acme-prod', prod]] as const) {
      for (const m of JSON.stringify(stack).matchAll(/"command":"node \\"([^"\\]+)\\""/g)) {
        const resolved = path.resolve(consumer, 'cdktf.out', 'stacks', id, m[1]);
        expect(fs.existsSync(resolved)).toBe(true);
        scripts.push(path.relative(bin, fs.realpathSync(resolved)));
      }
    }
    expect(scripts).toContain('wait-for-management.js');
    expect(scripts).toContain('wait-for-control-plane.js');
    for (const s of scripts) expect(s).toMatch(/^[a-z-]+\.js$/);
  });

  test('the workload stack holds the CAPI objects and reads the management stack state', () => {
    const kinds = resources(prod, 'kubernetes_manifest').map((m) => (m as { manifest: { kind: string } }).manifest.kind);
    expect(kinds).toEqual(expect.arrayContaining(['Cluster', 'OpenStackCluster', 'KubeadmControlPlane', 'MachineDeployment', 'MachineHealthCheck', 'HelmChartProxy']));
    expect(resourceTypes(prod)).toEqual(expect.arrayContaining(['kubernetes_namespace_v1', 'kubernetes_secret_v1', 'openstack_identity_application_credential_v3']));
    const remote = Object.values(prod.data?.terraform_remote_state ?? {});
    expect(remote.map((r) => r.config?.path)).toEqual([path.join(consumer, 'terraform.acme-management.tfstate')]);
  });

  test('the operator CLI is installed as a bin', () => {
    const help = execFileSync(path.join(consumer, 'node_modules', '.bin', 'capi-openstack'), ['--help'], { encoding: 'utf8' });
    expect(help).toMatch(/validate/);
    const version = execFileSync(path.join(consumer, 'node_modules', '.bin', 'capi-openstack'), ['--version'], { encoding: 'utf8' });
    expect(version).toContain(PKG.version);
  });
});
