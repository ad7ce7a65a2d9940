/**
 * The framework mix of issue 37: a project that installs cdktn under its own name beside this
 * package, which then pulls cdktf as its peer; the app takes App and TerraformStack from cdktn.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { installedCopies, run } from './consumer-project';

/** The app: cdktn's App and TerraformStack, the library's constructs. */
const OWN_NAME_MAIN = `const { App, TerraformStack } = require('cdktn');
const { ManagementCluster, OpenstackProvider, TlsProvider, environmentFromObject } = require('capi-openstack-cdktf');
const environment = environmentFromObject('acme', { cloud: { name: 'mycloud' }, management: { apiAllowedCidrs: ['198.51.100.0/24'] } });
const app = new App();
const platform = new TerraformStack(app, 'platform');
new OpenstackProvider(platform, 'Cloud', { cloud: 'mycloud' });
new TlsProvider(platform, 'Certificates');
new ManagementCluster(platform, 'CapiManagement', { environment });
app.synth();
`;

export interface FrameworkMix {
  /** Versions of `cdktf` npm installed (the peer it added). */
  readonly cdktfCopies: string[];
  readonly status: number | null;
  readonly stderr: string;
  /** Whether any stack's Terraform JSON was written. */
  readonly synthesized: boolean;
}

/** Installs the tarball with cdktn under its own name into `dir` (cache first) and runs the app with node. */
export function runCdktnUnderItsOwnName(dir: string, tarball: string, cdktn: { readonly version: string; readonly constructs: string }): FrameworkMix {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'acme-clusters', version: '1.0.0', private: true }, null, 2));
  const args = ['install', '--no-audit', '--no-fund', tarball, `cdktn@${cdktn.version}`, `constructs@${cdktn.constructs}`];
  if (spawnSync('npm', ['--offline', ...args], { cwd: dir, encoding: 'utf8' }).status !== 0) run('npm', ['--prefer-offline', ...args], dir);
  const installed = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', 'cdktn', 'package.json'), 'utf8')) as { version: string };
  if (installed.version !== cdktn.version) throw new Error(`expected cdktn ${cdktn.version} in ${dir}, found ${installed.version}`);
  fs.writeFileSync(path.join(dir, 'main.js'), OWN_NAME_MAIN);
  const outdir = path.join(dir, 'cdktf.out');
  const r = spawnSync(process.execPath, ['main.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, CDKTF_OUTDIR: outdir } });
  const stacks = path.join(outdir, 'stacks');
  const synthesized = fs.existsSync(stacks) && fs.readdirSync(stacks).some((id) => fs.existsSync(path.join(stacks, id, 'cdk.tf.json')));
  return { cdktfCopies: installedCopies(dir, 'cdktf'), status: r.status, stderr: r.stderr, synthesized };
}
