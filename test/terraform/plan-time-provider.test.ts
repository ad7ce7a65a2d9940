/**
 * A stack that holds the management cluster and a kubernetes provider fed by its outputs is refused
 * at synth with the two-stack pattern; the two-stack composition with the helper synthesizes.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { KubernetesProvider, ManagementCluster, OpenstackProvider, TimeProvider, TlsProvider, WorkloadCluster, managementKubernetesConnection } from '../../lib';
import { environment, environmentYaml } from '../stacks/support';

const env = environment(environmentYaml('clusters:\n  web: {}\n'), 'acme');

function cloudStack(app: App, id: string): TerraformStack {
  const stack = new TerraformStack(app, id);
  new OpenstackProvider(stack, 'Cloud', { cloud: 'testcloud' });
  new TlsProvider(stack, 'Tls');
  new TimeProvider(stack, 'Time');
  return stack;
}

describe('no provider configured from values of its own stack', () => {
  let outdir: string;
  beforeEach(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-time-'));
  });
  afterEach(() => fs.rmSync(outdir, { recursive: true, force: true }));

  test('one stack with the management cluster and a kubernetes provider fed by it is refused at synth, naming the pattern', () => {
    const app = new App({ outdir });
    const stack = cloudStack(app, 'platform');
    const management = new ManagementCluster(stack, 'Management', { environment: env });
    new KubernetesProvider(stack, 'Kube', managementKubernetesConnection(management));
    new WorkloadCluster(stack, 'Web', { environment: env, cluster: env.clusters[0], management: { kind: 'created', cluster: management } });
    expect(() => app.synth()).toThrow(/KubeManifests in stack "platform": the kubernetes provider platform\/Kube is configured from (openstack_networking_floatingip_v2|tls_[a-z_]+)\.\S+.* of the same stack, unknown at plan time.*new ManagementStack\(app, '<env>-management', \{ environment \}\) and new WorkloadClusterStack.*managementKubernetesConnection\(managementCluster\)/s);
  });

  test('two stacks: the connection arrives as a cross-stack reference and synthesizes', () => {
    const app = new App({ outdir });
    const managementStack = cloudStack(app, 'acme-platform');
    const management = new ManagementCluster(managementStack, 'Management', { environment: env });
    const workload = cloudStack(app, 'acme-web');
    new KubernetesProvider(workload, 'Management', managementKubernetesConnection(management));
    new WorkloadCluster(workload, 'Web', { environment: env, cluster: env.clusters[0], management: { kind: 'created', cluster: management } });
    workload.addDependency(managementStack);
    app.synth();
    const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'acme-web', 'cdk.tf.json'), 'utf8'));
    expect(json.provider.kubernetes[0].host).toMatch(/\$\{data\.terraform_remote_state\./);
    expect(json.provider.kubernetes[0].client_key).toMatch(/\$\{data\.terraform_remote_state\./);
  });
});
