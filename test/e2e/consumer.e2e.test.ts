/**
 * The npm package as a consumer sees it: `npm pack` of this repository, installed into a fresh
 * project in a temp folder (from the npm cache, `--offline`; `--prefer-offline` when the cache
 * lacks something), a ManagementStack and a WorkloadClusterStack composed in TypeScript that is
 * type-checked against the packaged typings, then synthesized with node.
 *
 * Runs in the e2e tier (npm + tsc + synth take ~20-40 s): `npm run test:consumer`.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** What a consumer writes: under 30 lines, only the package's public API. */
const CONSUMER_MAIN = `import { App } from 'cdktf';
import { ManagementStack, WorkloadClusterStack, parseEnvironment } from 'capi-openstack-cdktf';

// Environment file text, validated like environments/*.yaml; the file name names the environment.
const environment = parseEnvironment(
  [
    'cloud: { name: mycloud, authUrl: "https://keystone.example.com:5000/v3", region: RegionOne }',
    'management: { apiAllowedCidrs: [198.51.100.0/24], waitForReady: true }',
    'clusters:',
    '  prod:',
    '    kubernetesVersion: v1.33.x',
    '    controlPlane: { count: 3 }',
    '    nodeGroups: [{ name: md-0, count: 2 }]',
  ].join('\\n'),
  'acme.yaml',
);

const app = new App();
const management = new ManagementStack(app, 'acme-management', { environment });
const prod = environment.clusters.find((c) => c.name === 'prod')!;
new WorkloadClusterStack(app, 'acme-prod', { environment, cluster: prod, management }).addDependency(management);
app.synth();
`;

interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

interface StackJson {
  readonly resource?: Record<string, Record<string, Record<string, unknown>>>;
  readonly data?: Record<string, Record<string, { readonly config?: { readonly path?: string } }>>;
}

function run(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed with ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function installedVersion(name: string): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

const resourceTypes = (s: StackJson) => Object.keys(s.resource ?? {});
const resources = (s: StackJson, type: string) => Object.values(s.resource?.[type] ?? {});

describe('npm package consumed from a fresh project', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-consumer-'));
  const consumer = path.join(work, 'consumer');
  let pack: PackResult;
  let management: StackJson;
  let prod: StackJson;

  beforeAll(() => {
    run('npm', ['run', '--silent', 'build'], ROOT);
    pack = (JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], ROOT)) as PackResult[])[0];

    fs.mkdirSync(consumer);
    fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'acme-clusters', version: '1.0.0', private: true }, null, 2));
    fs.writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, esModuleInterop: true, skipLibCheck: false, types: ['node'], outDir: '.' }, files: ['main.ts'] }, null, 2),
    );
    fs.writeFileSync(path.join(consumer, 'main.ts'), CONSUMER_MAIN);
    const deps = [path.join(work, pack.filename), `cdktf@${installedVersion('cdktf')}`, `constructs@${installedVersion('constructs')}`, `@types/node@${installedVersion('@types/node')}`];
    const npmArgs = ['install', '--no-audit', '--no-fund', '--no-save', ...deps];
    const offline = spawnSync('npm', ['--offline', ...npmArgs], { cwd: consumer, encoding: 'utf8' });
    if (offline.status !== 0) {
      // The cache lacks a package (fresh machine): fetch what is missing from the registry.
      console.warn(`consumer e2e: offline install failed, retrying with --prefer-offline:\n${offline.stderr.split('\n').slice(-6).join('\n')}`);
      run('npm', ['--prefer-offline', ...npmArgs], consumer);
    }

    // Type-check the consumer against the packaged typings, then synthesize like `cdktf synth` would.
    run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer], consumer);
    run(process.execPath, ['main.js'], consumer, { ...process.env, CDKTF_OUTDIR: path.join(consumer, 'cdktf.out') });
    const stack = (id: string) => JSON.parse(fs.readFileSync(path.join(consumer, 'cdktf.out', 'stacks', id, 'cdk.tf.json'), 'utf8')) as StackJson;
    management = stack('acme-management');
    prod = stack('acme-prod');
  }, 5 * 60 * 1000);

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

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

  test('the management stack holds the OpenStack side, the minted PKI and the readiness gate', () => {
    expect(resourceTypes(management)).toEqual(
      expect.arrayContaining([
        'openstack_compute_instance_v2',
        'openstack_networking_network_v2',
        'openstack_networking_router_v2',
        'openstack_networking_floatingip_v2',
        'openstack_identity_application_credential_v3',
        'tls_private_key',
        'tls_self_signed_cert',
        'terraform_data',
      ]),
    );
  });

  test('the readiness gate runs the wait script from node_modules', () => {
    const gate = resources(management, 'terraform_data').find((r) => Array.isArray((r as { provisioner?: unknown }).provisioner)) as
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
