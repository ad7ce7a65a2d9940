/**
 * ClusterLeftoversCleanup synthesizes a terraform_data whose only provisioner runs the bundled
 * script at destroy time with an environment read from `self` alone and no secret in its input
 * (Terraform prints a terraform_data's input in plans); the stack validates against the provider schemas.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { IdentityApplicationCredentialV3 } from '../../../lib/gen/openstack/identity-application-credential-v3';
import { OpenstackProvider } from '../../../lib/gen/openstack/provider';
import { ClusterLeftoversCleanup, ClusterLeftoversCleanupProps } from '../../../lib/openstack/cluster-leftovers';
import { bundledScriptPath } from '../../../lib/terraform/bundled-script';
import { validateStackJson } from '../../support/provider-schema';
import { readCliConfig } from '../../../lib/runtime/cleanup/cli';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Synth {
  readonly json: any;
  readonly outdir: string;
  readonly stackDir: string;
}

function synth(props: (credential: IdentityApplicationCredentialV3) => Partial<ClusterLeftoversCleanupProps> = () => ({})): Synth {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'leftovers-synth-'));
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'env-web');
  new OpenstackProvider(stack, 'OpenStack', { cloud: 'testcloud' });
  const credential = new IdentityApplicationCredentialV3(stack, 'Credential', { name: 'capi-env-web' });
  new ClusterLeftoversCleanup(stack, 'Leftovers', {
    clusterName: 'capi-env-web',
    cloud: 'testcloud',
    region: 'RegionOne',
    ...props(credential),
  });
  app.synth();
  const stackDir = path.join(outdir, 'stacks', 'env-web');
  const json = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
  fs.rmSync(outdir, { recursive: true, force: true });
  return { json, outdir, stackDir };
}

function cleanupResource(json: any): any {
  const all = Object.values<any>(json.resource?.terraform_data ?? {});
  expect(all).toHaveLength(1);
  return all[0];
}

/** Every reference in the `${...}` expressions of a value (function names excluded). */
function references(value: unknown): string[] {
  const text = JSON.stringify(value);
  const refs: string[] = [];
  for (const m of text.matchAll(/\$\{([^}]*)\}/g)) {
    for (const r of m[1].matchAll(/([A-Za-z_][\w-]*(?:\.[\w-]+|\[[^\]]*\])*)(\s*\()?/g)) if (!r[2]) refs.push(r[1]);
  }
  return refs;
}

describe('ClusterLeftoversCleanup', () => {
  test('a destroy-time local-exec that reads only self.input; the create does nothing', () => {
    const { json, stackDir } = synth();
    const data = cleanupResource(json);
    expect(data.provisioner).toHaveLength(1);
    const exec = data.provisioner[0]['local-exec'];
    expect(exec.when).toBe('destroy');
    expect(Object.keys(data.provisioner[0])).toEqual(['local-exec']);

    // node "<relative path>" resolving, from the stack directory, to the compiled script
    const m = /^node "(.+)"$/.exec(exec.command);
    expect(m).not.toBeNull();
    expect(path.isAbsolute(m![1])).toBe(false);
    expect(path.resolve(stackDir, m![1])).toBe(path.join(ROOT, 'bin', 'cleanup-cluster-leftovers.js'));

    const refs = references(exec);
    expect(refs.length).toBe(Object.keys(data.input).length);
    expect(refs.filter((r) => !/^self\.input\.[a-z_]+$/.test(r))).toEqual([]);
    expect(references(exec.command)).toEqual([]);
    for (const value of Object.values<string>(exec.environment)) expect(value).toMatch(/^\$\{nonsensitive\(self\.input\.[a-z_]+\)\}$/);

    // every environment variable is fed from an input key, and every input key reaches the script
    const fromInput = Object.values<string>(exec.environment).map((v) => /self\.input\.([a-z_]+)/.exec(v)![1]);
    expect(fromInput.sort()).toEqual(Object.keys(data.input).sort());
    expect(Object.keys(exec.environment).every((k) => k.startsWith('CAPI_CLEANUP_'))).toBe(true);
  });

  test('the input: the clouds.yaml entry, no secret; defaults spelled out', () => {
    const { json } = synth();
    const data = cleanupResource(json);
    expect(data.input).toEqual({
      cloud: 'testcloud',
      clouds_file: '',
      region: 'RegionOne',
      interface: '',
      ca_pem: '',
      cluster_name: 'capi-env-web',
      csi_cluster_name: '',
      machine_network: '',
      volumes: 'delete',
      timeout_minutes: '20',
    });
    expect(JSON.stringify(data)).not.toMatch(/secret|password/);
    expect(data.depends_on).toBeUndefined();
  });

  test('the environment the script gets from that input is valid for it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leftovers-clouds-'));
    const cloudsFile = path.join(dir, 'clouds.yaml');
    fs.writeFileSync(cloudsFile, 'clouds:\n  testcloud:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: https://keystone.test:5000\n      application_credential_id: ac-9\n      application_credential_secret: s-9\n    region_name: RegionTwo\n');
    try {
      const { json } = synth(() => ({
        cloudsFile,
        machineNetworkName: 'k8s-clusterapi-cluster-capi-env-web-web',
        deleteVolumes: false,
        timeoutMinutes: 7,
        endpointInterface: 'internal',
        csiClusterName: 'capi-env-web-csi',
      }));
      const data = cleanupResource(json);
      const exec = data.provisioner[0]['local-exec'];
      // what Terraform hands the script: each ${nonsensitive(self.input.x)} replaced by input.x
      const env = Object.fromEntries(Object.entries<string>(exec.environment).map(([k, v]) => [k, data.input[/self\.input\.([a-z_]+)/.exec(v)![1]]]));
      expect(readCliConfig(env)).toMatchObject({
        authUrl: 'https://keystone.test:5000',
        auth: { type: 'application_credential', id: 'ac-9', secret: 's-9' },
        occmClusterName: 'capi-env-web',
        csiClusterName: 'capi-env-web-csi',
        region: 'RegionOne', // the stack's region wins over region_name
        endpointInterface: 'internal',
        machineNetworkName: 'k8s-clusterapi-cluster-capi-env-web-web',
        deleteVolumes: false,
        timeoutMs: 7 * 60_000,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('dependsOn is passed on; the stack validates against the pinned provider schemas', () => {
    const { json } = synth((c) => ({ dependsOn: [c] }));
    const data = cleanupResource(json);
    expect(data.depends_on).toEqual(['openstack_identity_application_credential_v3.Credential']);
    expect(validateStackJson(json)).toEqual([]);
    // terraform_data is built into Terraform (no provider schema): its arguments by hand
    expect(Object.keys(data).filter((k) => k !== '//').sort()).toEqual(['depends_on', 'input', 'provisioner']);
  });

  test('a non-positive timeout is refused at synth time', () => {
    expect(() => synth(() => ({ timeoutMinutes: 0 }))).toThrow(/Invalid props of ClusterLeftoversCleanup at \S+\/Leftovers[^]*timeoutMinutes: expected a whole number from 1 to 1440, found number 0/);
  });

  test('bundledScriptPath: relative to <outdir>/stacks/<stack>, to bin/ next to lib/', () => {
    const app = new App({ outdir: '/work/out' });
    const stack = new TerraformStack(app, 'prod-web');
    expect(path.resolve('/work/out/stacks/prod-web', bundledScriptPath(stack, 'x.js'))).toBe(path.join(ROOT, 'bin', 'x.js'));
  });
});
