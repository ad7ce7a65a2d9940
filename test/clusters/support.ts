/** Consumer-style compositions for the construct guards: own stacks and ids, the providers the constructs need. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { IManagementCluster, KubernetesProvider, OpenstackProvider, TimeProvider, TlsProvider, managementKubernetesConnection } from '../../lib';

export { environment, environmentYaml } from '../support/environment-text';

/** A stack for a ManagementCluster: OpenStack (logged in with `cloud`) and TLS. */
export function managementStack(scope: Construct, id: string, cloud = 'testcloud'): TerraformStack {
  const stack = new TerraformStack(scope, id);
  new OpenstackProvider(stack, 'Cloud', { cloud });
  new TlsProvider(stack, 'Certificates');
  return stack;
}

/** A stack for a WorkloadCluster: OpenStack, time and Kubernetes (pointed at `management`, else a kubeconfig). */
export function workloadStack(scope: Construct, id: string, management?: IManagementCluster, cloud = 'testcloud'): TerraformStack {
  const stack = new TerraformStack(scope, id);
  new OpenstackProvider(stack, 'Cloud', { cloud });
  new TimeProvider(stack, 'Time');
  new KubernetesProvider(stack, 'Management', management ? managementKubernetesConnection(management) : { configPath: '/dev/null' });
  return stack;
}

export interface SynthResult {
  /** The synthesis error, or `(no error)`. */
  readonly error: string;
  /** The stacks written before it (or all of them). */
  readonly written: string[];
  /** cdktf's manifest (with each stack's annotations), when synthesis finished. */
  readonly manifest?: { readonly stacks: Record<string, { readonly annotations: { readonly constructPath: string; readonly level: string; readonly message: string }[] }> };
}

/** Builds an app in a temporary directory and synthesizes it (validations on, as `cdktf synth` does). */
export function synthApp(build: (app: App) => void): SynthResult {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'guards-'));
  const app = new App({ outdir });
  build(app);
  let error = '(no error)';
  try {
    app.synth();
  } catch (e) {
    error = (e as Error).message;
  }
  const stacksDir = path.join(outdir, 'stacks');
  const written = fs.existsSync(stacksDir) ? fs.readdirSync(stacksDir).filter((s) => fs.existsSync(path.join(stacksDir, s, 'cdk.tf.json'))) : [];
  const manifestFile = path.join(outdir, 'manifest.json');
  const manifest = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : undefined;
  fs.rmSync(outdir, { recursive: true, force: true });
  return { error, written, manifest };
}

/** The message a constructor throws, or `(no error)`; a TypeError is reported as such (it names no construct). */
export function constructionError(build: () => unknown): string {
  try {
    build();
  } catch (e) {
    return e instanceof TypeError ? `TypeError: ${e.message}` : (e as Error).message;
  }
  return '(no error)';
}
