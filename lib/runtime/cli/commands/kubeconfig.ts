/** `kubeconfig <env> [cluster]`: the management or a workload kubeconfig, from stack outputs. */
import * as fs from 'fs';
import * as path from 'path';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { loadEnvironmentFile } from '../../../config/load';
import { EnvironmentConfigError } from '../../../config/errors';
import { existingKubeconfigPath } from '../../../config/existing-management';
import { managementStackName, workloadStackName } from '../../../config/naming';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath, environmentFile, loadName } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { credentialsFromKubeconfig, fetchSecretValue, readKubeconfigFile, serverOfKubeconfig, writePrivateFile } from '../kubeconfig/kubeconfig-file';
import { readStackOutputs, requireOutput, StackOutputs } from '../kubeconfig/stack-outputs';

export const kubeconfigSpec: CommandSpec = {
  name: 'kubeconfig',
  usage: '<env> [cluster]',
  summary: 'Write the kubeconfig of the management cluster, or of a workload cluster, from the stack outputs.',
  details: [
    'Management: the sensitive output "kubeconfig" of stack <env>-management. Workload: the stack <env>-<cluster> names the Secret that Cluster API keeps the kubeconfig in (output "kubeconfig_secret"); it is read from the management cluster through its API, so this machine must be in management.apiAllowedCidrs. With existingManagementCluster in the environment file, that kubeconfig is used to read the Secret.',
    'Outputs are read with `terraform output -json` in <cdktf-out>/stacks/<stack> (the stack must have been deployed from this project directory). A TF_CLI_CONFIG_FILE in the environment is used as is; otherwise scripts/toolchain/env.sh is sourced when present.',
    'The file is written with mode 0600; key material is never printed.',
  ],
  options: [
    { name: 'out', value: '<file>', description: 'Output file (default: ./<env>.kubeconfig or ./<env>-<cluster>.kubeconfig).' },
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}); only read to detect existingManagementCluster.` },
    { name: 'cdktf-out', value: '<dir>', description: 'Synthesis output directory (default: "output" of cdktf.json, else cdktf.out).' },
    { name: 'management-stack', value: '<stack>', description: 'Stack with the management cluster\'s "kubeconfig" output, for stacks of your own (default: <env>-management).' },
    { name: 'stack', value: '<stack>', description: 'Stack with the workload cluster\'s "kubeconfig_secret" output, for stacks of your own (default: <env>-<cluster>).' },
  ],
  minPositionals: 1,
  maxPositionals: 2,
  examples: [
    'capi-openstack kubeconfig example',
    'capi-openstack kubeconfig example demo --out ~/.kube/demo.yaml',
    'capi-openstack kubeconfig acme --management-stack platform',
  ],
};

/** Default synthesis directory of the project in `cwd`. */
export function cdktfOutDir(cwd: string): string {
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(cwd, 'cdktf.json'), 'utf8')) as { output?: string };
    if (cfg.output) return path.resolve(cwd, cfg.output);
  } catch {
    // no cdktf.json: the default
  }
  return path.join(cwd, 'cdktf.out');
}

export async function runKubeconfig(args: ParsedArgs, io: CliIo): Promise<number> {
  const [env, cluster] = args.positionals;
  for (const [what, v] of [['environment', env], ['cluster', cluster]] as const) {
    if (v !== undefined && !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)) throw new CliError(`"${v}" is not a valid ${what} name`);
  }
  const outRoot = path.resolve(io.cwd, stringOption(args, 'cdktf-out') ?? cdktfOutDir(io.cwd));
  const outFile = path.resolve(io.cwd, stringOption(args, 'out') ?? `${cluster ? `${env}-${cluster}` : env}.kubeconfig`);
  const outputsOf = async (stack: string): Promise<StackOutputs> => {
    io.err(`kubeconfig: reading outputs of stack ${stack} (terraform output)…`);
    return readStackOutputs(path.join(outRoot, 'stacks', stack), stack, { projectDir: io.cwd, env: io.env });
  };
  const byo = existingManagementCluster(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, env);
  if (byo && !cluster) {
    throw new CliError(`environment ${env} uses an existing management cluster (existingManagementCluster): its kubeconfig is ${byo.kubeconfigFile}`);
  }

  const mgmtStack = stackOption(args, 'management-stack') ?? managementStackName(env);
  let management: { text: string; what: string; context?: string; baseDir?: string };
  if (byo) {
    if (!fs.existsSync(byo.kubeconfigFile)) throw new CliError(`existingManagementCluster.kubeconfigFile ${byo.kubeconfigFile} of environment ${env} does not exist`);
    management = { text: readKubeconfigFile(byo.kubeconfigFile), what: byo.kubeconfigFile, context: byo.context, baseDir: path.dirname(byo.kubeconfigFile) };
  } else {
    const text = requireOutput(await outputsOf(mgmtStack), mgmtStack, 'kubeconfig');
    if (typeof text !== 'string' || !text.includes('clusters')) throw new CliError(`output "kubeconfig" of stack ${mgmtStack} is not a kubeconfig`);
    management = { text, what: `output "kubeconfig" of stack ${mgmtStack}` };
  }

  let content = management.text;
  let label = `management cluster of ${env}`;
  if (cluster) {
    const stack = stackOption(args, 'stack') ?? workloadStackName(env, cluster);
    const outputs = await outputsOf(stack);
    const outputName = SECRET_OUTPUTS.find((n) => n in outputs) ?? SECRET_OUTPUTS[0];
    const ref = secretRef(requireOutput(outputs, stack, outputName), stack, outputName);
    const creds = credentialsFromKubeconfig(management.text, management.what, { context: management.context, baseDir: management.baseDir });
    io.err(`kubeconfig: reading secret ${ref.namespace}/${ref.name} from the management cluster…`);
    content = await fetchSecretValue(creds, ref.namespace, ref.name, ref.key);
    if (!content.includes('clusters')) throw new CliError(`secret ${ref.namespace}/${ref.name} does not hold a kubeconfig in key "${ref.key}"`);
    label = `workload cluster ${cluster} of ${env}`;
  }
  writePrivateFile(outFile, content);
  const shown = displayPath(io.cwd, outFile);
  const server = serverOfKubeconfig(content);
  io.out(`wrote ${shown} (${label}${server ? `, API ${server}` : ''}); try: KUBECONFIG=${shown} kubectl get nodes`);
  return 0;
}

/** A stack name given on the command line (cdktf stack ids: letters, digits, `-`, `_`). */
function stackOption(args: ParsedArgs, name: string): string | undefined {
  const value = stringOption(args, name);
  if (value !== undefined && !/^[A-Za-z0-9][-A-Za-z0-9_]*$/.test(value)) throw new CliError(`--${name}: "${value}" is not a stack name (letters, digits, "-" and "_")`);
  return value;
}

/** Output of a workload stack naming the kubeconfig Secret; the first is what WorkloadClusterStack writes. */
const SECRET_OUTPUTS = ['kubeconfig_secret', 'kubeconfigSecret'] as const;

/**
 * The environment's existingManagementCluster, when its file is found and valid; undefined
 * otherwise (the stack outputs are then the only source).
 */
function existingManagementCluster(io: CliIo, dir: string, env: string): { kubeconfigFile: string; context?: string } | undefined {
  let file: string;
  try {
    file = environmentFile(io.cwd, dir, env);
  } catch {
    return undefined;
  }
  let byo;
  try {
    byo = loadEnvironmentFile(loadName(io.cwd, file)).spec.existingManagementCluster;
  } catch (e) {
    // a kubeconfig the file names but that cannot be read is the answer, not a reason to look for stack outputs
    if (e instanceof EnvironmentConfigError && e.issues.some((i) => i.path === 'existingManagementCluster.kubeconfigFile')) throw new CliError(e.message);
    return undefined; // an invalid file does not stop reading outputs of what was deployed
  }
  return byo ? { kubeconfigFile: existingKubeconfigPath(file, byo.kubeconfigFile), context: byo.context } : undefined;
}

/** The secret output: `{namespace, name, key?}` (also accepted as a JSON string); key defaults to `value` (CAPI). */
export function secretRef(value: unknown, stack: string, outputName: string = SECRET_OUTPUTS[0]): { namespace: string; name: string; key: string } {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      // reported below
    }
  }
  const o = v as { namespace?: unknown; name?: unknown; key?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.namespace !== 'string' || typeof o.name !== 'string' || !o.namespace || !o.name) {
    throw new CliError(`output "${outputName}" of stack ${stack} is not {namespace, name}`);
  }
  return { namespace: o.namespace, name: o.name, key: typeof o.key === 'string' && o.key ? o.key : 'value' };
}
