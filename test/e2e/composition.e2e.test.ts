/**
 * The library composed in a consumer's own stack: a ManagementCluster with the consumer's own
 * construct ids and provider ids inside its own TerraformStack, from the packed npm package, then
 * `terraform plan` of it against the local cloud (plans create nothing). Skipped, with a message,
 * when the local cloud is not running, unless LOCAL_CLOUD_REQUIRED=1.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { probeLocalCloud } from './support/local-cloud-probe';
import { LOCAL_CLOUDS_YAML } from './support/management-cloud';
import { ROOT, buildConsumer, installedVersion, packRepository } from './helpers/consumer-project';

const OWN_STACK = `import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagementCluster, OpenstackProvider, TlsProvider, environmentFromObject } from 'capi-openstack-cdktf';

const environment = environmentFromObject('acme', {
  cloud: { name: 'local-e2e', region: 'RegionOne' },
  network: { externalNetworkName: 'public', dnsNameservers: ['192.0.2.53'] },
  management: { flavor: 'SCS-2V-4', image: 'Ubuntu 24.04', bootVolumeSizeGb: 10, waitForReady: false },
});

class Platform extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new OpenstackProvider(this, 'Cloud', { cloud: 'local-e2e', region: 'RegionOne' });
    new TlsProvider(this, 'Certificates');
    new ManagementCluster(this, 'CapiManagement', { environment });
  }
}

const app = new App();
new Platform(app, 'platform');
app.synth();
`;

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const cloud = probeLocalCloud(LOCAL_CLOUDS_YAML, 'local-e2e');
if (!cloud.ok && !REQUIRED) console.warn(`composition e2e skipped: the local cloud is not running (${cloud.why}); set LOCAL_CLOUD_REQUIRED=1 to make this a failure.`);
const suite = cloud.ok || REQUIRED ? describe : describe.skip;

/** A command with the offline toolchain and the local cloud's clouds.yaml. */
function withToolchain(argv: readonly string[], cwd: string): { code: number | null; output: string } {
  const env = { ...process.env, OS_CLIENT_CONFIG_FILE: LOCAL_CLOUDS_YAML, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  const r = spawnSync('bash', ['-c', 'source "$1" || exit 97; shift; exec "$@"', 'run', path.join(ROOT, 'scripts', 'toolchain', 'env.sh'), ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

suite("ManagementCluster in a consumer's own stack, planned against the local cloud", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-composition-'));
  const consumer = path.join(work, 'consumer');
  let stack: any;

  beforeAll(() => {
    if (!cloud.ok) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the local cloud is not running (${cloud.why})`);
    const pack = packRepository(work);
    process.env.OS_CLIENT_CONFIG_FILE = LOCAL_CLOUDS_YAML; // the environment's clouds.yaml entry is read at synth
    stack = buildConsumer(consumer, path.join(work, pack.filename), { main: OWN_STACK, dependencies: [`cdktf@${installedVersion('cdktf')}`, `constructs@${installedVersion('constructs')}`] }).platform;
  }, 5 * 60 * 1000);
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test("the consumer's own ids name the resources, and its providers are the ones used", () => {
    const paths = Object.values<any>(stack.resource.openstack_compute_instance_v2).map((r) => r['//'].metadata.path);
    expect(paths).toEqual(['platform/CapiManagement/Server/Instance']);
    expect(Object.keys(stack.provider)).toEqual(expect.arrayContaining(['openstack', 'tls']));
    expect(stack.provider.openstack).toHaveLength(1);
  });

  test('terraform plan against the local cloud: lookups resolve, everything is to be created, nothing fails', () => {
    const dir = path.join(consumer, 'cdktf.out', 'stacks', 'platform');
    const init = withToolchain(['terraform', 'init', '-input=false', '-no-color'], dir);
    expect(init.code).toBe(0);
    const plan = withToolchain(['terraform', 'plan', '-input=false', '-no-color', '-detailed-exitcode'], dir);
    if (plan.code !== 2) throw new Error(`expected a plan with changes (exit 2), got ${plan.code}:\n${plan.output.slice(-4000)}`);
    const summary = /Plan: (\d+) to add, 0 to change, 0 to destroy/.exec(plan.output);
    expect(summary).not.toBeNull();
    expect(Number(summary![1])).toBeGreaterThan(15);
    expect(plan.output).toContain('acme-mgmt-boot');
  });
});
