/**
 * The npm package as a consumer sees it: `npm pack` of a clean clone of this repository (commit
 * first), installed into fresh projects beside the framework packages (peer dependencies), once
 * with the newest `constructs`, `yaml` and `zod` in range, once pinned to the oldest and once on
 * cdktn (the fork of cdktf, under the name `cdktf`); a
 * ManagementStack and a WorkloadClusterStack composed in TypeScript that is type-checked against
 * the packaged typings, then synthesized with node; and every TypeScript block of the README and
 * docs/*.md, as printed, compiled strict and run there. Then a team's project with stack ids of
 * its own and its environment built in code, on which the installed operator commands run
 * (validate, cdktf synth, a deploy of its management stack on the local cloud with state in the
 * local S3 server, state status, kubeconfig, management backups): test/e2e/helpers/team-project.ts.
 *
 * Runs in the e2e tier (npm + tsc + synth take ~30-60 s per consumer; the team project's deploy and
 * destroy a few minutes more): `npm run test:consumer`.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CleanClonePack, PKG, buildConsumer, installedCopies, installedVersion, newestInRange, packCleanClone } from './helpers/consumer-project';
import { runCdktnUnderItsOwnName } from './helpers/framework-mix';
import { BlockFolder, BlockRun, runBlocks, typescriptBlocks } from './helpers/doc-blocks';
import { describeTeamProject } from './helpers/team-project';

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
/** The ranges a consumer may resolve: the package's runtime dependencies and the constructs peer. */
const RANGES = { constructs: '^10.4.2', yaml: (PKG as any).dependencies.yaml as string, zod: (PKG as any).dependencies.zod as string };
let pack: CleanClonePack;
beforeAll(() => {
  pack = packCleanClone(work);
}, 10 * 60 * 1000);

test('a clean clone builds itself: npm ci && npx cdktf synth writes the example stacks', () => {
  expect(pack.synthesizedStacks).toEqual(expect.arrayContaining(['example-management', 'example-demo']));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * The versions a consumer may have: any that the ranges accept (`constructs` is a peer dependency),
 * and cdktn, the maintained fork of cdktf, installed under the name `cdktf` with the `constructs` it accepts.
 */
const CDKTN = { version: '0.24.0', constructs: '10.7.2' };
const CHOICES = [
  ['the newest constructs, yaml and zod in range', 'newest'],
  ['the oldest constructs, yaml and zod in range', 'oldest'],
  [`cdktn ${CDKTN.version} as cdktf`, 'cdktn'],
] as const;

describe.each(CHOICES)('npm package consumed from a fresh project with %s', (label, end) => {
  const lowest = (range: string) => range.replace(/^\^/, '');
  const cdktfSpec = end === 'cdktn' ? `cdktf@npm:cdktn@${CDKTN.version}` : `cdktf@${installedVersion('cdktf')}`;
  const constructsSpec = end === 'oldest' ? `constructs@${lowest(RANGES.constructs)}` : end === 'cdktn' ? `constructs@${CDKTN.constructs}` : `constructs@${RANGES.constructs}`;
  const pinned = end === 'oldest' ? [`yaml@${lowest(RANGES.yaml)}`, `zod@${lowest(RANGES.zod)}`] : [];
  const expected = (name: keyof typeof RANGES) =>
    end === 'oldest' ? lowest(RANGES[name]) : end === 'cdktn' && name === 'constructs' ? CDKTN.constructs : newestInRange(name, RANGES[name]);
  const consumer = path.join(work, label.replace(/\W+/g, '-'));
  let management: StackJson;
  let prod: StackJson;

  beforeAll(() => {
    const stacks = buildConsumer(consumer, path.join(work, pack.filename), { main: CONSUMER_MAIN, dependencies: [cdktfSpec, constructsSpec, ...pinned], preferOnline: end === 'newest' });
    management = stacks['acme-management'];
    prod = stacks['acme-prod'];
  }, 5 * 60 * 1000);

  test("one copy of constructs and of cdktf: the consumer's", () => {
    expect(installedCopies(consumer, 'cdktf')).toEqual([end === 'cdktn' ? CDKTN.version : installedVersion('cdktf')]);
    const framework = JSON.parse(fs.readFileSync(path.join(consumer, 'node_modules', 'cdktf', 'package.json'), 'utf8')) as { name: string };
    expect(framework.name).toBe(end === 'cdktn' ? 'cdktn' : 'cdktf');
    expect(installedCopies(consumer, 'constructs')).toEqual([expected('constructs')]);
  });

  test('yaml and zod are ranges: one copy each, at the end of the range this project picked', () => {
    expect(RANGES.yaml).toMatch(/^\^/);
    expect(RANGES.zod).toMatch(/^\^/);
    expect(installedCopies(consumer, 'yaml')).toEqual([expected('yaml')]);
    expect(installedCopies(consumer, 'zod')).toEqual([expected('zod')]);
  });

  test('the HCL parser is not installed for a library user; import-tfvars names what to install', () => {
    expect(fs.existsSync(path.join(consumer, 'node_modules', '@cdktf', 'hcl2json'))).toBe(false);
    fs.writeFileSync(path.join(consumer, 'environment-acme.tfvars'), 'cloud_name = "mycloud"\n');
    const r = spawnSync(path.join(consumer, 'node_modules', '.bin', 'capi-openstack'), ['import-tfvars', 'environment-acme.tfvars'], { cwd: consumer, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('import-tfvars needs the HCL parser @cdktf/hcl2json, an optional dependency that is not installed: run `npm install @cdktf/hcl2json@0.21`');
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
      'LICENSE',
    ]) {
      expect(files).toContain(f);
    }
    // every module of the library comes with its typings
    const js = files.filter((f) => /^dist\/lib\/.*\.js$/.test(f));
    expect(js.length).toBeGreaterThan(100);
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, '.d.ts')))).toEqual([]);
    const unexpected = files.filter((f) => /^(test|scripts|schemas|cdktf\.out|node_modules|\.ci|\.github)\//.test(f) || /\.ts$/.test(f.replace(/\.d\.ts$/, '')) || /tsbuildinfo|\.tfstate|\.tgz$/.test(f));
    expect(unexpected).toEqual([]);
    expect(pack.size).toBeLessThan(2 * 1024 * 1024);
  });

  test("example.yaml copied into the project: the schema path it gives for a project resolves to the installed package's schema", () => {
    const installed = path.join(consumer, 'node_modules', PKG.name, 'environments');
    const example = fs.readFileSync(path.join(installed, 'example.yaml'), 'utf8');
    const reference = /replace \.\/environment\.schema\.json on the first line with\n#\s+(\S+)\n/.exec(example)?.[1];
    expect(reference).toBeDefined();
    const schema = path.resolve(consumer, 'environments', reference!);
    expect(fs.realpathSync(schema)).toBe(fs.realpathSync(path.join(installed, 'environment.schema.json')));
    expect(JSON.parse(fs.readFileSync(schema, 'utf8')).$schema).toMatch(/json-schema\.org/);
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

  describe('every TypeScript block of the README and docs/*.md, as printed', () => {
    const example = fs.readFileSync(path.join(__dirname, '..', '..', 'environments', 'example.yaml'), 'utf8');
    const SHARED_STATE = 'stateBackend:\n  endpoint: https://object-store.example.com\n  bucket: capi-state\n';
    const blocks = typescriptBlocks();
    // blocks that read environment files and add no backend of their own run once more with stateBackend
    const shared = blocks.filter((b) => /loadEnvironment|EnvironmentsApp/.test(b.code) && !/Backend\(/.test(b.code));
    const folders: BlockFolder[] = [
      ...blocks.map((block) => ({ block, folder: block.id, acmeYaml: example })),
      ...shared.map((block) => ({ block, folder: `${block.id}-shared-state`, acmeYaml: `${example}\n${SHARED_STATE}` })),
    ];
    let runs: Record<string, BlockRun>;
    let esm: Record<string, BlockRun> | undefined;
    beforeAll(() => {
      runs = runBlocks(consumer, folders);
      // once more as ES modules (the newest versions only: the module format does not depend on them)
      if (end === 'newest') esm = runBlocks(consumer, blocks.map((block) => ({ block, folder: block.id, acmeYaml: example })), 'esm');
    }, 10 * 60 * 1000);

    (end === 'newest' ? test : test.skip)('as ES modules (.mts, nodenext) they compile strict and synthesize the same stacks', () => {
      for (const block of blocks) expect([block.id, Object.keys(esm![block.id].stacks).sort()]).toEqual([block.id, Object.keys(runs[block.id].stacks).sort()]);
    });

    test('the README has its three blocks and docs/concepts.md its state example', () => {
      expect(blocks.map((b) => b.where.split(':')[0])).toEqual(['README.md', 'README.md', 'README.md', 'docs/concepts.md']);
      expect(shared.length).toBeGreaterThan(0);
    });

    test.each(folders.map((f) => [f.folder, f] as const))('%s compiles strict and synthesizes', (folder) => {
      const stacks = runs[folder].stacks;
      expect(Object.keys(stacks).length).toBeGreaterThan(0);
      for (const stack of Object.values(stacks)) expect(Object.keys(stack.resource ?? {}).length).toBeGreaterThan(0);
    });

    test('the blocks that compose the constructs hold the management VM', () => {
      const vms = folders.filter((f) => Object.values(runs[f.folder].stacks).some((st) => st.resource?.openstack_compute_instance_v2));
      expect(vms.map((f) => f.folder)).toEqual(expect.arrayContaining(blocks.slice(0, 3).map((b) => b.id)));
    });

    test("the README's two-stack block: the workload stack's kubernetes provider reads the management stack's state", () => {
      const web = runs[blocks[2].id].stacks.web;
      expect(web.provider.kubernetes[0].host).toMatch(/\$\{data\.terraform_remote_state\./);
      expect(Object.keys(web.resource)).toContain('kubernetes_manifest');
    });

    test('with stateBackend every stack of those blocks is on the shared store, and reads remote state from it', () => {
      for (const block of shared) {
        const stacks = runs[`${block.id}-shared-state`].stacks;
        for (const [id, stack] of Object.entries(stacks)) {
          expect([id, stack.terraform.backend.s3?.key]).toEqual([id, `acme/${id}.tfstate`]);
          for (const remote of Object.values(stack.data?.terraform_remote_state ?? {}) as { backend: string }[]) expect([id, remote.backend]).toEqual([id, 's3']);
        }
      }
    });
  });

  test('the root is the only entry point: CommonJS and ESM import it, deep imports into dist/ are refused', () => {
    const names = 'ManagementStack, managementKubernetesConnection, openstack, DataOpenstackIdentityAuthScopeV3';
    const show = `console.log([typeof ManagementStack, typeof managementKubernetesConnection, typeof openstack.networkingNetworkV2.NetworkingNetworkV2, typeof DataOpenstackIdentityAuthScopeV3].join(' '))`;
    const esm = spawnSync(process.execPath, ['--input-type=module', '-e', `import { ${names} } from '${PKG.name}'; ${show}`], { cwd: consumer, encoding: 'utf8' });
    expect([esm.status, esm.stdout.trim(), esm.stderr]).toEqual([0, 'function function function function', '']);
    const cjs = spawnSync(process.execPath, ['-e', `const { ${names} } = require('${PKG.name}'); ${show}`], { cwd: consumer, encoding: 'utf8' });
    expect([cjs.status, cjs.stdout.trim()]).toEqual([0, 'function function function function']);
    const deep = spawnSync(process.execPath, ['-e', `require('${PKG.name}/dist/lib/config/load')`], { cwd: consumer, encoding: 'utf8' });
    expect(deep.status).not.toBe(0);
    expect(deep.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  test('the operator CLI is installed as a bin', () => {
    const help = execFileSync(path.join(consumer, 'node_modules', '.bin', 'capi-openstack'), ['--help'], { encoding: 'utf8' });
    expect(help).toMatch(/validate/);
    const version = execFileSync(path.join(consumer, 'node_modules', '.bin', 'capi-openstack'), ['--version'], { encoding: 'utf8' });
    expect(version).toContain(PKG.version);
  });
});

test('cdktn installed under its own name (npm adds cdktf as the peer): the first construct refuses the mix, naming both packages and the fix', () => {
  const mix = runCdktnUnderItsOwnName(path.join(work, 'cdktn-under-its-own-name'), path.join(work, pack.filename), CDKTN);
  expect(mix.cdktfCopies).toEqual([installedVersion('cdktf')]);
  expect(mix.status).not.toBe(0);
  expect(mix.stderr).toContain(`ManagementCluster at platform/CapiManagement: its stack "platform" is a TerraformStack of cdktn ${CDKTN.version}, but capi-openstack-cdktf loads cdktf ${installedVersion('cdktf')}`);
  expect(mix.stderr).toContain(`\`npm uninstall cdktn && npm install cdktf@npm:cdktn@${CDKTN.version}\`, and import App and TerraformStack from 'cdktf'`);
  expect(mix.stderr).not.toContain('_resetResolveDiscoveredProviderFeatureUsage');
  expect(mix.synthesized).toBe(false);
}, 5 * 60 * 1000);

describeTeamProject(() => ({ work, tarball: path.join(work, pack.filename) }));
