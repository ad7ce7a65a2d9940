/** `import-tfvars`: the old tool's settings → an environment file that validates; nothing silently dropped. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { loadEnvironmentFile } from '../../../lib/config/load';
import { parseArgs } from '../../../lib/runtime/cli/args';
import { importTfvars, importTfvarsSpec } from '../../../lib/runtime/cli/commands/import-tfvars';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { convertTfvars } from '../../../lib/runtime/cli/tfvars/convert';
import { hclErrorLine, parseTfvars } from '../../../lib/runtime/cli/tfvars/parse';
import { parseHostsFile } from '../../../lib/runtime/cli/tfvars/registry-hosts';
import { DEFAULT_CONTROLLER_VERSIONS, DEFAULT_KUBERNETES_VERSION } from '../../../lib/config/versions';
import { runCliProcess } from './support/cli-process';

const FIXTURES = path.join(__dirname, 'fixtures', 'old-tool');
const FILLED = path.join(FIXTURES, 'environment-lab.tfvars');
const TEMPLATE = path.join(FIXTURES, 'environment-template.tfvars');
/** The old tool's own sample file, in the shared/ folder beside the checkout (development machines and CI; not part of the repository). */
const OLD_SAMPLE = path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'reference', 'old-tool', 'environment-default.tfvars');

/** Keys assigned at the start of a line: found without the HCL parser, so the test does not trust it. */
function keysOf(text: string): string[] {
  return [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map((m) => m[1]);
}

/** Every setting name of ../shared/PARITY.md that is a tfvars key of the old tool. */
const PARITY_KEYS = [
  'cloud_provider', 'prefix', 'availability_zone', 'external', 'external_id', 'dns_nameservers', 'mgmt_cidr', 'mgmt_ip_range',
  'restrict_mgmt_server', 'kind_flavor', 'image', 'ssh_username', 'kind_mtu', 'http_proxy', 'no_proxy', 'clusterapi_version',
  'capi_openstack_version', 'containerd_registry_files', 'kubernetes_version', 'controller_flavor', 'worker_flavor', 'controller_count',
  'worker_count', 'controller_metadata', 'worker_metadata', 'node_cidr', 'pod_cidr', 'service_cidr', 'anti_affinity',
  'soft_anti_affinity_controller', 'restrict_kubeapi', 'use_ovn_lb_provider', 'etcd_unsafe_fs', 'capo_instance_create_timeout',
  'use_cilium', 'calico_version', 'deploy_occm', 'deploy_cindercsi', 'deploy_metrics', 'deploy_nginx_ingress', 'deploy_cert_manager',
  'deploy_flux', 'deploy_gateway_api', 'deploy_harbor',
];

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cli-import-'));
}

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
        'deploy_nginx_ingress', // version → pinned chart
        'harbor_config', // Harbor unsupported
        'kube_image_raw', // images by name
        'kubernetes_version', // v1.28 outside the matrix
      ].sort(),
    );
    expect(result.reported).toBe(10);
    const line = (key: string) => fixtureText.split('\n').findIndex((l) => l.startsWith(`${key} `)) + 1;
    expect(io.stderr).toContain(
      `${FILLED}:${line('clusterapi_version')}: clusterapi_version: expected a supported Cluster API release (v1.12.x), found "v1.6.3": not carried over, the current default ${DEFAULT_CONTROLLER_VERSIONS.clusterApi} is used`,
    );
    expect(io.stderr.join('\n')).toMatch(/kubernetes_version: expected a Kubernetes version between v1\.29\.x and v1\.35\.x .*found "v1\.28\.x": not carried over, v1\.35\.x is used/);
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
    expect(s.registryMirrors).toEqual([{ registry: 'docker.io', endpoints: ['https://registry.lab.example/v2/docker.io'], skipVerify: false }]);
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
    expect(c.addons.gatewayApi.enabled).toBe(true);
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

describe('conversion rules', () => {
  async function convert(text: string, options: { cloud?: string } = {}) {
    const parsed = await parseTfvars('t.tfvars', text);
    return convertTfvars(parsed.values, { sourceName: 't.tfvars', fileBases: [os.tmpdir()], cloud: options.cloud });
  }
  const outcome = (c: Awaited<ReturnType<typeof convert>>, key: string) => c.outcomes.find((o) => o.key === key)!;

  test('unknown keys and Terraform expressions are reported, never dropped', async () => {
    const c = await convert('cloud_provider = "x"\nworker_flavour = "SCS-2V-4"\nkind_flavor = "${var.f}"\n');
    expect(outcome(c, 'worker_flavour')).toMatchObject({ status: 'reported', notes: [expect.stringContaining('unknown setting')] });
    expect(outcome(c, 'kind_flavor')).toMatchObject({ status: 'reported', notes: [expect.stringContaining('Terraform expression')] });
  });

  test('restrict_mgmt_server: 0.0.0.0/0 (open) is not carried, other CIDRs are', async () => {
    const open = await convert('cloud_provider = "x"\nrestrict_mgmt_server = ["0.0.0.0/0"]\n');
    expect(outcome(open, 'restrict_mgmt_server').status).toBe('reported');
    expect(open.environment.management).toEqual({ apiAllowedCidrs: [], sshAllowedCidrs: [] });
    const mixed = await convert('cloud_provider = "x"\nrestrict_mgmt_server = ["0.0.0.0/0", "192.0.2.0/24"]\n');
    expect(mixed.environment.management).toEqual({ apiAllowedCidrs: ['192.0.2.0/24'], sshAllowedCidrs: ['192.0.2.0/24'] });
  });

  test('anti-affinity: false → no server groups; soft controller → soft', async () => {
    const off = await convert('cloud_provider = "x"\nanti_affinity = false\n');
    const cl = (c: typeof off) => (c.environment.clusters as Record<string, Record<string, unknown>>).testcluster;
    expect(cl(off)).toMatchObject({ controlPlane: { antiAffinity: 'none' }, nodeGroups: [{ name: 'md-0', antiAffinity: 'none' }] });
    const soft = await convert('cloud_provider = "x"\nsoft_anti_affinity_controller = "true"\n');
    expect(cl(soft)).toMatchObject({ controlPlane: { antiAffinity: 'soft' } });
  });

  test('use_cilium false → calico; gateway API then not carried; versions reported', async () => {
    const c = await convert('cloud_provider = "x"\nuse_cilium = false\ncalico_version = "v3.27.3"\ndeploy_gateway_api = "true"\ndeploy_flux = "v2.2.3"\n');
    const addons = (c.environment.clusters as Record<string, { addons: Record<string, unknown> }>).testcluster.addons;
    expect(addons).toEqual({ cni: { type: 'calico' }, flux: true });
    expect(outcome(c, 'deploy_gateway_api').notes[0]).toContain('needs cilium');
    expect(outcome(c, 'calico_version').notes[0]).toContain('addons.cni.version');
    expect(outcome(c, 'deploy_flux').notes[0]).toContain('v2.2.3');
  });

  test('an even controller_count becomes the next odd number, reported', async () => {
    const c = await convert('cloud_provider = "x"\ncontroller_count = 2\n');
    expect((c.environment.clusters as Record<string, { controlPlane: unknown }>).testcluster.controlPlane).toEqual({ count: 3 });
    expect(outcome(c, 'controller_count').status).toBe('reported');
  });

  test('a prefix with invalid characters is made valid and reported', async () => {
    const c = await convert('cloud_provider = "x"\nprefix = "CAPI_Test"\n');
    expect(c.environment.prefix).toBe('capi-test');
    expect(outcome(c, 'prefix').notes[0]).toMatch(/^"CAPI_Test" changed to "capi-test"/);
  });

  test('--cloud replaces cloud_provider (reported when different)', async () => {
    const c = await convert('cloud_provider = "old"\n', { cloud: 'new' });
    expect(c.environment.cloud).toEqual({ name: 'new' });
    expect(outcome(c, 'cloud_provider').notes).toEqual(['"old" replaced by --cloud new']);
  });

  test('a supported Cluster API version is carried over, the matching CAPO too', async () => {
    const c = await convert(`cloud_provider = "x"\nclusterapi_version = "1.12.3"\ncapi_openstack_version = "0.14.1"\nkubernetes_version = "v1.34.x"\n`);
    expect(c.environment.versions).toEqual({ clusterApi: 'v1.12.3', capo: 'v0.14.1' });
    expect(c.outcomes.every((o) => o.status === 'carried')).toBe(true);
  });

  test('a missing hosts file of containerd_registry_files is reported', async () => {
    const c = await convert('cloud_provider = "x"\ncontainerd_registry_files = {"hosts": ["./nope/quay.io"]}\n');
    expect(outcome(c, 'containerd_registry_files').notes[0]).toMatch(/^hosts file \.\/nope\/quay\.io not found .*convert it to registryMirrors by hand/);
  });

  test('tfvars.json is read as JSON', async () => {
    const parsed = await parseTfvars('x.tfvars.json', '{"cloud_provider": "x", "worker_count": 2}');
    expect(parsed.values).toEqual({ cloud_provider: 'x', worker_count: 2 });
    expect(parsed.lines).toEqual({ cloud_provider: 1, worker_count: 1 });
  });

  test('invalid HCL fails with file:line:column', async () => {
    await expect(parseTfvars('bad.tfvars', 'a = "x"\nb = = 1\n')).rejects.toThrow(/^bad\.tfvars:2:\d+: not valid HCL: /);
    expect(hclErrorLine('f.tfvars', 'parse config: [f.tfvars:23,24-25: Invalid expression; Expected the start of an expression.]')).toBe(
      'f.tfvars:23:24: not valid HCL: Invalid expression; Expected the start of an expression.',
    );
  });

  test('the environment name comes from the file name, or --name; invalid names fail clearly', async () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'environment-My_Cloud.tfvars'), 'cloud_provider = "x"\n');
    const io = memoryIo(cwd);
    expect(await runCli(['import-tfvars', 'environment-My_Cloud.tfvars'], io)).toBe(1);
    expect(io.stderr.pop()).toBe(
      'error: "my_cloud" is not a usable environment name: expected lowercase letters, digits and "-", at most 24, starting with a letter (derived from environment-My_Cloud.tfvars; pass --name <env>)',
    );
    const io2 = memoryIo(cwd);
    expect(await runCli(['import-tfvars', 'environment-My_Cloud.tfvars', '--name', 'my-cloud', '--out', 'envs/other.yaml'], io2)).toBe(2 - 1);
    expect(io2.stderr.pop()).toMatch(/--name my-cloud and --out envs\/other\.yaml disagree/);
    const io3 = memoryIo(cwd);
    expect(await runCli(['import-tfvars', 'environment-My_Cloud.tfvars', '--out', 'envs/my-cloud.yaml'], io3)).toBe(0);
    expect(io3.stdout).toEqual(['wrote envs/my-cloud.yaml: 1 settings carried over, 0 reported']);
  });
});

describe('import-tfvars of settings that do not fit together', () => {
  test('nothing is written; each problem names the field and the old setting behind it', async () => {
    const cwd = tmp();
    fs.writeFileSync(path.join(cwd, 'environment-ov.tfvars'), 'cloud_provider = "x"\nmgmt_cidr = "10.8.0.0/24"\npod_cidr = "10.8.0.0/16"\n');
    const io = memoryIo(cwd);
    expect(await runCli(['import-tfvars', 'environment-ov.tfvars'], io)).toBe(1);
    expect(io.stderr.pop()).toBe(
      [
        'error: the converted settings of environment-ov.tfvars do not form a valid environment, nothing written:',
        '  clusters.testcluster.network.podCidr (old pod_cidr): expected a range that does not overlap network.nodeCidr 10.8.0.0/20, found "10.8.0.0/16"',
        '  clusters.testcluster.network.nodeCidr: expected a range that does not overlap the management subnet 10.8.0.0/24, found "10.8.0.0/20"',
        '  clusters.testcluster.network.podCidr (old pod_cidr): expected a range that does not overlap the management subnet 10.8.0.0/24, found "10.8.0.0/16"',
      ].join('\n'),
    );
    expect(fs.existsSync(path.join(cwd, 'environments'))).toBe(false);
  });
});

describe('containerd hosts files', () => {
  test('the old docker.io file: registry, endpoint, nothing lost', () => {
    const text = fs.readFileSync(path.join(FIXTURES, 'files', 'containerd', 'docker.io'), 'utf8');
    expect(parseHostsFile('docker.io', text)).toEqual({ registry: 'docker.io', endpoints: ['https://registry.lab.example/v2/docker.io'], skipVerify: false, problems: [] });
  });

  test('what has no counterpart is listed', () => {
    const r = parseHostsFile('hosts.toml', 'server = "https://quay.io"\n[host."https://m.example/v2/quay"]\n  skip_verify = true\n  ca = "/etc/ca.pem"\n[host."https://m.example/v2/quay".header]\n  x = ["y"]\n');
    expect(r.registry).toBe('quay.io');
    expect(r.skipVerify).toBe(true);
    expect(r.problems).toEqual([
      'line 4: ca has no counterpart in registryMirrors (CA files go to registryMirrors[].caCertificateFile)',
      'line 5: table [host."https://m.example/v2/quay".header] (e.g. headers or client certificates) has no counterpart in registryMirrors',
      'line 6: x has no counterpart in registryMirrors (CA files go to registryMirrors[].caCertificateFile)',
    ]);
  });
});
