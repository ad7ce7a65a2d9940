/** `import-tfvars`: the old tool's settings → an environment file that validates; nothing silently dropped. */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { loadEnvironmentFile } from '../../../lib/config/load';
import { parseArgs } from '../../../lib/runtime/cli/args';
import { importTfvars, importTfvarsSpec } from '../../../lib/runtime/cli/commands/import-tfvars';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { convertTfvars } from '../../../lib/runtime/cli/tfvars/convert';
import { parseTfvars } from '../../../lib/runtime/cli/tfvars/parse';
import { DEFAULT_CONTROLLER_VERSIONS, DEFAULT_KUBERNETES_VERSION } from '../../../lib/config/versions';
import { runCliProcess } from './support/cli-process';
import { FIXTURES, FILLED, TEMPLATE, OLD_SAMPLE, keysOf, PARITY_KEYS, tmp } from './support/tfvars-fixtures';

describe('import-tfvars of the filled fixture', () => {
  const cwd = tmp();
  const io = memoryIo(cwd);
  let result: Awaited<ReturnType<typeof importTfvars>>;
  let yamlText: string;
  const fixtureText = fs.readFileSync(FILLED, 'utf8');

  beforeAll(async () => {
    result = await importTfvars(parseArgs(importTfvarsSpec, [FILLED]), io);
    yamlText = fs.readFileSync(result.file, 'utf8');
  });

  test('the fixture has every setting of PARITY.md and of the template (the old sample file\'s keys)', () => {
    const keys = keysOf(fixtureText);
    for (const k of [...PARITY_KEYS, ...keysOf(fs.readFileSync(TEMPLATE, 'utf8'))]) expect(keys).toContain(k);
  });

  (fs.existsSync(OLD_SAMPLE) ? test : test.skip)('the fixture has every key of the old sample file (shared/ beside the checkout)', () => {
    const keys = keysOf(fixtureText);
    for (const k of keysOf(fs.readFileSync(OLD_SAMPLE, 'utf8'))) expect(keys).toContain(k);
  });

  test('writes environments/lab.yaml, which validates with lib/config', () => {
    expect(result.file).toBe(path.join(cwd, 'environments', 'lab.yaml'));
    const env = loadEnvironmentFile(result.file);
    expect(env.name).toBe('lab');
    expect(env.clusters.map((c) => c.name)).toEqual(['lab1']);
  });

  test('summary line on stdout; N + M = every key of the file', () => {
    const keys = keysOf(fixtureText);
    expect(io.stdout).toEqual([`wrote environments/lab.yaml: ${result.carried} settings carried over, ${result.reported} reported`]);
    expect(result.carried + result.reported).toBe(keys.length);
  });

  test('exactly the settings without a counterpart are reported, each with file:line and reason', () => {
    const reported = io.stderr.filter((l) => /^.*environment-lab\.tfvars:\d+: /.test(l)).map((l) => /tfvars:\d+: ([a-z_]+): /.exec(l)![1]);
    expect([...new Set(reported)].sort()).toEqual(
      [
        'calico_version', // cilium is the CNI
        'capi_openstack_version', // 0.9.0 outside the matrix
        'cilium_binaries', // chart install, no CLI
        'clusterapi_version', // 1.6.3 outside the matrix
        'containerd_registry_files', // the certs list
        'deploy_cert_manager', // version → pinned chart
        'deploy_gateway_api', // on, with the CRDs installed by the operator
        'deploy_nginx_ingress', // version → pinned chart
        'harbor_config', // Harbor unsupported
        'kube_image_raw', // images by name
        'kubernetes_version', // v1.28 outside the matrix
      ].sort(),
    );
    expect(result.reported).toBe(11);
    const line = (key: string) => fixtureText.split('\n').findIndex((l) => l.startsWith(`${key} `)) + 1;
    expect(io.stderr).toContain(
      `${FILLED}:${line('clusterapi_version')}: clusterapi_version: expected a supported Cluster API release (v1.12.x, v1.13.x, v1.14.x), found "v1.6.3": not carried over, the current default ${DEFAULT_CONTROLLER_VERSIONS.clusterApi} is used`,
    );
    expect(io.stderr.join('\n')).toMatch(/kubernetes_version: expected a Kubernetes version between v1\.31\.x and v1\.37\.x .*found "v1\.28\.x": not carried over, v1\.36\.x is used/);
    expect(io.stderr[io.stderr.length - 1]).toMatch(/^Not carried over \(see above and the comment at the top of environments\/lab\.yaml\): clusterapi_version, capi_openstack_version, /);
  });

  test('no key silently dropped: every key is reported, or lands in fields of the written file, or is documented as the default', async () => {
    const parsed = await parseTfvars(FILLED, fixtureText);
    const conversion = convertTfvars(parsed.values, { sourceName: 'x', fileBases: [FIXTURES] });
    expect(conversion.outcomes.map((o) => o.key).sort()).toEqual(keysOf(fixtureText).sort());
    const written = parse(yamlText);
    const at = (p: string) => p.split(/\.|\[(\d+)\]/).filter(Boolean).reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], written);
    for (const o of conversion.outcomes) {
      if (o.status === 'reported') {
        expect(o.notes.length).toBeGreaterThan(0);
        expect(yamlText).toContain(`#   ${o.key}: `); // listed in the header of the file
      } else if (o.fields.length > 0) {
        for (const f of o.fields) expect([o.key, f, at(f)]).not.toEqual([o.key, f, undefined]);
      } else {
        expect([o.key, o.sameAsDefault]).toEqual([o.key, expect.stringMatching(/\S/)]);
      }
    }
    const defaults = Object.fromEntries(conversion.outcomes.filter((o) => o.sameAsDefault).map((o) => [o.key, o.sameAsDefault]));
    expect(defaults).toEqual({
      external_id: 'empty: the other of external / external_id names the network',
      deploy_harbor: 'false: Harbor is not deployed, and this tool does not deploy it',
    });
  });

  test('values carried over to the right fields', () => {
    const env = loadEnvironmentFile(result.file);
    const s = env.spec;
    expect(s.prefix).toBe('capi');
    expect(s.availabilityZone).toBe('nova');
    expect(s.cloud.name).toBe('lab-admin');
    expect(s.network).toMatchObject({
      externalNetworkName: 'ext-net',
      managementCidr: '10.0.10.0/24',
      allocationPoolStart: '10.0.10.20',
      allocationPoolEnd: '10.0.10.200',
      dnsNameservers: ['9.9.9.9', '149.112.112.112'],
      mtu: 1450,
    });
    expect(s.network.externalNetworkId).toBeUndefined();
    expect(s.management).toMatchObject({ flavor: 'SCS-4V-8', image: 'Ubuntu 24.04', sshUsername: 'ubuntu' });
    // restrict_mgmt_server → both the management API and SSH
    expect(s.management.apiAllowedCidrs).toEqual(['198.51.100.0/24', '203.0.113.8/29']);
    expect(s.management.sshAllowedCidrs).toEqual(['198.51.100.0/24', '203.0.113.8/29']);
    expect(s.proxy).toEqual({ httpProxy: 'http://proxy.lab.example:3128', noProxy: ['.lab.example', '10.0.0.0/8'] });
    expect(s.registryMirrors).toEqual([{ registry: 'docker.io', endpoints: ['https://registry.lab.example/v2/docker.io'], skipVerify: false, allowPlainHttp: false }]);
    expect(s.versions).toEqual(DEFAULT_CONTROLLER_VERSIONS);
    const c = s.clusters.lab1;
    expect(c.kubernetesVersion).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(c.controlPlane).toMatchObject({ count: 3, flavor: 'SCS-4V-16-50s', antiAffinity: 'hard', etcdUnsafeFilesystem: false, metadata: { team: 'platform', cost_center: '4711' } });
    expect(c.nodeGroups).toEqual([expect.objectContaining({ name: 'md-0', count: 5, flavor: 'SCS-8V-32-100s', antiAffinity: 'soft', metadata: { team: 'platform' } })]);
    expect(c.network).toEqual({ nodeCidr: '10.9.0.0/20', podCidr: '172.16.0.0/16', serviceCidr: '10.96.0.0/12' });
    expect(c.apiAllowedCidrs).toEqual(['198.51.100.0/24']);
    expect(c.ovnLoadBalancer).toBe('auto');
    expect(c.instanceCreateTimeoutMinutes).toBe(10);
    expect(c.addons.cni.type).toBe('cilium');
    expect(c.addons.ingressNginx.enabled).toBe(true);
    expect(c.addons.ingressNginx.version).toBeUndefined();
    expect(c.addons.certManager.enabled).toBe(true);
    expect(c.addons.flux.enabled).toBe(false);
    expect(c.addons.gatewayApi).toMatchObject({ enabled: true, crds: false });
    expect(c.addons.metricsServer.enabled).toBe(true);
    expect(c.addons.openstackCloudControllerManager.enabled).toBe(true);
    expect(c.addons.cinderCsi.enabled).toBe(true);
  });

  test('the written file explains itself: schema line, old key names, the management access decision', () => {
    expect(yamlText.startsWith('# yaml-language-server: $schema=./environment.schema.json\n')).toBe(true);
    expect(yamlText).toContain('flavor: SCS-4V-8 # old kind_flavor');
    expect(yamlText).toContain('# From restrict_mgmt_server.');
    expect(yamlText).toContain(`kubernetesVersion: ${DEFAULT_KUBERNETES_VERSION} # was v1.28.x`);
    expect(yamlText).not.toMatch(/[&*]a\d/); // no YAML anchors/aliases
  });

  test('refuses to overwrite without --force, overwrites with it', async () => {
    const io2 = memoryIo(cwd);
    expect(await runCli(['import-tfvars', FILLED], io2)).toBe(1);
    expect(io2.stderr).toEqual(['error: environments/lab.yaml exists; pass --force to overwrite it']);
    fs.writeFileSync(result.file, 'changed');
    const io3 = memoryIo(cwd);
    expect(await runCli(['import-tfvars', FILLED, '--force'], io3)).toBe(0);
    expect(fs.readFileSync(result.file, 'utf8')).toBe(yamlText);
  });
});

describe('import-tfvars of an unfilled template (placeholders, as in the old sample file)', () => {
  test('without --cloud: one clear line, exit 1, nothing written', () => {
    const cwd = tmp();
    const r = runCliProcess(['import-tfvars', TEMPLATE], cwd);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toBe(
      `error: ${TEMPLATE} names no usable clouds.yaml entry (cloud_provider is missing or a placeholder): pass --cloud <clouds.yaml entry>`,
    );
    expect(fs.existsSync(path.join(cwd, 'environments'))).toBe(false);
  });

  const convertsWithCloud = (source: string) => () => {
    const cwd = tmp();
    const r = runCliProcess(['import-tfvars', source, '--cloud', 'mycloud', '--name', 'sample'], cwd);
    expect(r.code).toBe(0);
    const text = fs.readFileSync(source, 'utf8');
    const keys = keysOf(text);
    const summary = /^wrote environments\/sample\.yaml: (\d+) settings carried over, (\d+) reported$/.exec(r.stdout.trim());
    expect(summary).not.toBeNull();
    expect(Number(summary![1]) + Number(summary![2])).toBe(keys.length);
    // The bare `controller_count = <number>` (not HCL) is read and reported like the quoted placeholders.
    const line = text.split('\n').findIndex((l) => /^controller_count\s*=\s*<number>/.test(l)) + 1;
    expect(r.stderr).toContain(`${path.basename(source)}:${line}: controller_count: unfilled placeholder "<number>" of the sample file: not carried over, the default applies`);
    // Every key is reported, except the example metadata maps, which are literal values and carried.
    const written = fs.readFileSync(path.join(cwd, 'environments', 'sample.yaml'), 'utf8');
    for (const key of keys) {
      const reported = r.stderr.includes(`: ${key}: `);
      expect([key, reported || written.includes(`# old ${key}`)]).toEqual([key, true]);
      expect([key, reported]).toEqual([key, !/_metadata$/.test(key)]);
    }
    expect(loadEnvironmentFile(path.join(cwd, 'environments', 'sample.yaml')).spec.cloud.name).toBe('mycloud');
  };

  test('with --cloud: every placeholder reported, the file validates, exit 0', convertsWithCloud(TEMPLATE));
  (fs.existsSync(OLD_SAMPLE) ? test : test.skip)('the old tool\'s own sample file converts the same way (shared/ beside the checkout)', convertsWithCloud(OLD_SAMPLE));
});

describe('import-tfvars --help', () => {
  test('names its optional peer, the HCL parser, and how to install it (the package does not bring it)', async () => {
    const io = memoryIo(tmp());
    expect(await runCli(['import-tfvars', '--help'], io)).toBe(0);
    const help = io.stdout.join('\n').replace(/\s+/g, ' ');
    expect(help).toContain('Needs the HCL parser @cdktf/hcl2json, an optional peer dependency that installing capi-openstack-cdktf does not add: `npm install @cdktf/hcl2json@0.21` in the project');
    // the package says the same: an optional peer, not a dependency
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
    expect(pkg.peerDependenciesMeta['@cdktf/hcl2json']).toEqual({ optional: true });
    expect(pkg.dependencies['@cdktf/hcl2json']).toBeUndefined();
  });
});
