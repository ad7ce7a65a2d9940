/** `import-tfvars`: the old tool's settings → an environment file that validates; nothing silently dropped. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { convertTfvars } from '../../../lib/runtime/cli/tfvars/convert';
import { hclErrorLine, parseTfvars } from '../../../lib/runtime/cli/tfvars/parse';
import { parseHostsFile } from '../../../lib/runtime/cli/tfvars/registry-hosts';
import { FIXTURES, tmp } from './support/tfvars-fixtures';

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

  test('restrict_mgmt_server: 0.0.0.0/0 (open) is not carried, other CIDRs are; closed means no readiness wait', async () => {
    const open = await convert('cloud_provider = "x"\nrestrict_mgmt_server = ["0.0.0.0/0"]\n');
    expect(outcome(open, 'restrict_mgmt_server').status).toBe('reported');
    expect(open.environment.management).toEqual({ apiAllowedCidrs: [], sshAllowedCidrs: [], waitForReady: false });
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
