/**
 * Two copies of the framework in one app. Another package or version (cdktn installed under its own
 * name beside the cdktf this library pulls as its peer) fails at synth with "… is not a function":
 * refused at construction, naming both packages (the consumer e2e installs the real cdktn for that).
 * A second copy of the same package and version (a symlinked or unhoisted install) synthesizes
 * correctly, cross-stack references included, and must keep working: here, a second module
 * instance of the installed framework, whose classes are distinct from the library's.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type * as Cdktf from 'cdktf';
import { ManagementCluster, OpenstackProvider, TimeProvider, TlsProvider, KubernetesProvider, WorkloadCluster, clusterNamed, managementKubernetesConnection } from '../../lib';
import { environment, environmentYaml } from '../support/environment-text';

function secondCopy(): typeof Cdktf {
  let copy: typeof Cdktf | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    copy = require('cdktf') as typeof Cdktf;
  });
  return copy!;
}

test('a second copy of the same framework version: accepted, and the composition synthesizes with its cross-stack references', () => {
  const other = secondCopy();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const own = require('cdktf') as typeof Cdktf;
  expect(other.App).not.toBe(own.App);
  const acme = environment(environmentYaml('clusters:\n  web: { apiAllowedCidrs: [198.51.100.0/24] }\n'), 'acme');
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'framework-copy-'));
  try {
    const app = new other.App({ outdir });
    const platform = new other.TerraformStack(app, 'platform');
    new OpenstackProvider(platform, 'Cloud', { cloud: 'testcloud' });
    new TlsProvider(platform, 'Tls');
    const management = new ManagementCluster(platform, 'Management', { environment: acme });
    const web = new other.TerraformStack(app, 'web');
    new OpenstackProvider(web, 'Cloud', { cloud: 'testcloud' });
    new TimeProvider(web, 'Time');
    new KubernetesProvider(web, 'Management', managementKubernetesConnection(management));
    new WorkloadCluster(web, 'Web', { environment: acme, cluster: clusterNamed(acme, 'web'), management: { kind: 'created', cluster: management } });
    app.synth();
    const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'web', 'cdk.tf.json'), 'utf8'));
    expect(json.provider.kubernetes[0].host).toMatch(/^https:\/\/\$\{data\.terraform_remote_state\.cross-stack-reference-input-platform\.outputs\./);
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});
