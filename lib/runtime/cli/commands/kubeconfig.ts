/** `kubeconfig <env> [cluster]`: the management or a workload kubeconfig, from stack outputs. */
import * as fs from 'fs';
import * as path from 'path';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { EnvironmentConfigError } from '../../../config/errors';
import { existingKubeconfigPath } from '../../../config/existing-management';
import { managementStackName, workloadStackName } from '../../../config/naming';
import { MANAGEMENT_OUTPUTS, WORKLOAD_OUTPUTS } from '../../../config/stack-records';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject, cdktfOutDir } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath, locateEnvironment } from '../environment-files';
import { EnvironmentStacks, managementStack, OperatorStack, recordedStacks, workloadStack } from '../environment-stacks';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { credentialsFromKubeconfig, fetchSecretValue, readKubeconfigFile, serverOfKubeconfig, writePrivateFile } from '../kubeconfig/kubeconfig-file';
import { readStackOutputs, requireOutput, StackOutputs } from '../kubeconfig/stack-outputs';

export const kubeconfigSpec: CommandSpec = {
  name: 'kubeconfig',
  usage: '<env> [cluster]',
  summary: 'Write the kubeconfig of the management cluster, or of a workload cluster, from the stack outputs.',
  details: [
    'The stacks are found in what the app synthesized (<cdktf-out>, `cdktf synth` first): the stack whose ManagementCluster, or whose WorkloadCluster <cluster>, belongs to environment <env>, with any stack id and output names; an environment the app did not record is looked for in the ready-made app\'s stacks <env>-management and <env>-<cluster>.',
    'Management: its sensitive output "kubeconfig". Workload: its output "kubeconfig_secret" names the Secret that Cluster API keeps the kubeconfig in; it is read from the management cluster through its API, so this machine must be in management.apiAllowedCidrs. With existingManagementCluster in the environment, that kubeconfig is used to read the Secret.',
    'Outputs are read with `terraform output -json` in the stack\'s directory of <cdktf-out> (the stack must have been deployed from this project). A TF_CLI_CONFIG_FILE in the environment is used as is; otherwise scripts/toolchain/env.sh of the project is sourced when present.',
    'The file is written with mode 0600; key material is never printed.',
  ],
  options: [
    { name: 'out', value: '<file>', description: 'Output file (default: ./<env>.kubeconfig or ./<env>-<cluster>.kubeconfig).' },
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}); only read to detect existingManagementCluster.` },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
    { name: 'management-stack', value: '<stack>', description: 'Stack of the management cluster, when the synthesized app does not say (default: the one it recorded, else <env>-management).' },
    { name: 'stack', value: '<stack>', description: 'Stack of the workload cluster, when the synthesized app does not say (default: the one it recorded, else <env>-<cluster>).' },
  ],
  minPositionals: 1,
  maxPositionals: 2,
  examples: [
    'capi-openstack kubeconfig example',
    'capi-openstack kubeconfig example demo --out ~/.kube/demo.yaml',
    'capi-openstack kubeconfig acme --management-stack platform',
    'capi-openstack kubeconfig acme web --app-dir ../platform',
  ],
};

export { cdktfOutDir };

export async function runKubeconfig(args: ParsedArgs, io: CliIo): Promise<number> {
  const [env, cluster] = args.positionals;
  for (const [what, v] of [['environment', env], ['cluster', cluster]] as const) {
    if (v !== undefined && !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)) throw new CliError(`"${v}" is not a valid ${what} name`);
  }
  const project = CdktfProject.of(args, io);
  const outFile = path.resolve(io.cwd, stringOption(args, 'out') ?? `${cluster ? `${env}-${cluster}` : env}.kubeconfig`);
  const outputsOf = async (stack: OperatorStack): Promise<StackOutputs> => {
    io.err(`kubeconfig: reading outputs of stack ${stack.id} (terraform output)…`);
    return readStackOutputs(stack.dir, stack.id, { projectDir: project.dir, env: io.env });
  };
  const byo = existingManagementCluster(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, env, project);
  if (byo && !cluster) {
    throw new CliError(`environment ${env} uses an existing management cluster (existingManagementCluster): its kubeconfig is ${byo.kubeconfigFile}`);
  }
  // what the app recorded; without a record, the ready-made app's stack names (no environment file needed)
  const view = recordedStacks(project, io.cwd, env);
  const named = (id: string, role: 'management' | 'workload'): EnvironmentStacks => ({
    environment: env,
    from: 'naming',
    where: 'the ready-made app',
    stacks: [{ id, role, cluster, dir: path.join(project.outDir, 'stacks', id), outputs: Object.fromEntries((role === 'management' ? MANAGEMENT_OUTPUTS : WORKLOAD_OUTPUTS).map((n) => [n, n])), backend: { kind: 'local' } }],
  });

  let management: { text: string; what: string; context?: string; baseDir?: string };
  if (byo) {
    if (!fs.existsSync(byo.kubeconfigFile)) throw new CliError(`existingManagementCluster.kubeconfigFile ${byo.kubeconfigFile} of environment ${env} does not exist`);
    management = { text: readKubeconfigFile(byo.kubeconfigFile), what: byo.kubeconfigFile, context: byo.context, baseDir: path.dirname(byo.kubeconfigFile) };
  } else {
    const stack = managementStack(view ?? named(managementStackName(env), 'management'), project, stackOption(args, 'management-stack'));
    const name = stack.outputs.kubeconfig;
    const text = requireOutput(await outputsOf(stack), stack.id, name);
    if (typeof text !== 'string' || !text.includes('clusters')) throw new CliError(`output "${name}" of stack ${stack.id} is not a kubeconfig`);
    management = { text, what: `output "${name}" of stack ${stack.id}` };
  }

  let content = management.text;
  let label = `management cluster of ${env}`;
  if (cluster) {
    const stack = workloadStack(view ?? named(workloadStackName(env, cluster), 'workload'), project, cluster, stackOption(args, 'stack'));
    const outputs = await outputsOf(stack);
    // a stack without a record may be a consumer's own with the older camelCase name
    const outputName = stack.path ? stack.outputs.kubeconfig_secret : SECRET_OUTPUTS.find((n) => n in outputs) ?? SECRET_OUTPUTS[0];
    const ref = secretRef(requireOutput(outputs, stack.id, outputName), stack.id, outputName);
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

/** Output of a workload stack naming the kubeconfig Secret; the first is what WorkloadCluster writes. */
const SECRET_OUTPUTS = ['kubeconfig_secret', 'kubeconfigSecret'] as const;

/**
 * The environment's existingManagementCluster, when its file (or the app's record of it) is found
 * and valid; undefined otherwise (the stack outputs are then the only source).
 */
function existingManagementCluster(io: CliIo, dir: string, env: string, project: CdktfProject): { kubeconfigFile: string; context?: string } | undefined {
  let located;
  try {
    located = locateEnvironment(io, dir, env, project);
  } catch (e) {
    // a kubeconfig the environment names but that cannot be read is the answer, not a reason to look for stack outputs
    if (e instanceof EnvironmentConfigError && e.issues.some((i) => i.path === 'existingManagementCluster.kubeconfigFile')) throw new CliError(e.message);
    return undefined; // no file, or an invalid one: that does not stop reading outputs of what was deployed
  }
  const byo = located.config.spec.existingManagementCluster;
  // resolved as synthesis resolves it (relative to the environment's directory, `~/` to the home directory)
  return byo ? { kubeconfigFile: existingKubeconfigPath(path.join(located.baseDir, 'environment.yaml'), byo.kubeconfigFile), context: byo.context } : undefined;
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
