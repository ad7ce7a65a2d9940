/**
 * stateBackend belongs to the constructs, so every way of building the stacks gets it: the README's
 * `new ManagementStack` / `new WorkloadClusterStack`, and a consumer's own TerraformStack. A stack
 * that already has another backend is refused instead of keeping its state elsewhere.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, HttpBackend, LocalBackend, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { ManagementCluster, ManagementStack, OpenstackProvider, TlsProvider, WorkloadClusterStack } from '../../lib';
import { environment, environmentYaml } from './support';

const SHARED = `clusters:
  alpha: {}
stateBackend:
  endpoint: https://object.example.org/
  bucket: capi-state
`;

function synth(build: (app: App) => void): Record<string, any> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-composed-'));
  try {
    const app = new App({ outdir });
    build(app);
    app.synth();
    const dir = path.join(outdir, 'stacks');
    return Object.fromEntries(fs.readdirSync(dir).map((s) => [s, JSON.parse(fs.readFileSync(path.join(dir, s, 'cdk.tf.json'), 'utf8'))]));
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

const platformStack = (scope: Construct) => {
  const stack = new TerraformStack(scope, 'platform');
  new OpenstackProvider(stack, 'Cloud', { cloud: 'testcloud' });
  new TlsProvider(stack, 'Certificates');
  return stack;
};

describe('stateBackend wherever the stacks are built', () => {
  const env = environment(environmentYaml(SHARED));

  test("the README pattern: both stacks on the shared store, the workload stack reads the management state from it", () => {
    const json = synth((app) => {
      const management = new ManagementStack(app, 'unit-management', { environment: env });
      new WorkloadClusterStack(app, 'unit-alpha', { environment: env, cluster: env.clusters[0], management }).addDependency(management);
    });
    expect(json['unit-management'].terraform.backend.s3).toMatchObject({ bucket: 'capi-state', key: 'unit/unit-management.tfstate', use_lockfile: true });
    expect(json['unit-alpha'].terraform.backend.s3).toMatchObject({ bucket: 'capi-state', key: 'unit/unit-alpha.tfstate', use_lockfile: true });
    const remote = Object.values(json['unit-alpha'].data.terraform_remote_state) as { backend: string; config: { key: string } }[];
    expect(remote.map((r) => [r.backend, r.config.key])).toEqual([['s3', 'unit/unit-management.tfstate']]);
  });

  test("a consumer's own stack holding ManagementCluster gets the store under its own key", () => {
    const json = synth((app) => new ManagementCluster(platformStack(app), 'CapiManagement', { environment: env }));
    expect(json.platform.terraform.backend).toEqual({ s3: expect.objectContaining({ bucket: 'capi-state', key: 'unit/platform.tfstate', endpoints: { s3: 'https://object.example.org' } }) });
  });

  test('a stack that already has another backend is refused at construction, naming both', () => {
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'synth-composed-')) });
    const stack = platformStack(app);
    new HttpBackend(stack, { address: 'https://state.example.org/platform' });
    expect(() => new ManagementCluster(stack, 'CapiManagement', { environment: env })).toThrow(
      /ManagementCluster in stack "platform": environment "unit" keeps its Terraform state in s3:\/\/capi-state\/unit\/platform\.tfstate at https:\/\/object\.example\.org .*already has the backend HttpBackend \(platform\/backend\)\. Leave stateBackend out/,
    );
  });

  test('a backend added afterwards deeper in the stack is refused at synth instead of taking the state elsewhere', () => {
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'synth-composed-')) });
    const stack = platformStack(app);
    new ManagementCluster(stack, 'CapiManagement', { environment: env });
    new LocalBackend(new Construct(stack, 'Elsewhere'), { path: 'somewhere.tfstate' });
    expect(() => app.synth()).toThrow(/keeps its Terraform state in s3:\/\/capi-state\/unit\/platform\.tfstate.*LocalBackend \(platform\/Elsewhere\/backend\)/s);
  });

  test('an environment without stateBackend leaves the backend to the consumer', () => {
    const local = environment(environmentYaml('clusters:\n  alpha: {}\n'));
    const json = synth((app) => {
      const stack = platformStack(app);
      new HttpBackend(stack, { address: 'https://state.example.org/platform' });
      new ManagementCluster(stack, 'CapiManagement', { environment: local });
    });
    expect(json.platform.terraform.backend).toEqual({ http: { address: 'https://state.example.org/platform' } });
  });
});
