/** `kubeconfig <env> [cluster]`: the management or a workload kubeconfig, from stack outputs. */
import * as fs from 'fs';
import * as path from 'path';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { displayPath } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { credentialsFromKubeconfig, fetchSecretValue, serverOfKubeconfig, writePrivateFile } from '../kubeconfig/kubeconfig-file';
import { readStackOutputs, requireOutput, StackOutputs } from '../kubeconfig/stack-outputs';

export const kubeconfigSpec: CommandSpec = {
  name: 'kubeconfig',
  usage: '<env> [cluster]',
  summary: 'Write the kubeconfig of the management cluster, or of a workload cluster, from the stack outputs.',
  details: [
    'Management: the sensitive output "kubeconfig" of stack <env>-management. Workload: the stack <env>-<cluster> names the Secret that Cluster API keeps the kubeconfig in (output "kubeconfigSecret"); it is read from the management cluster through its API, so this machine must be in management.apiAllowedCidrs.',
    'Outputs are read with `terraform output -json` in <cdktf-out>/stacks/<stack> (the stack must have been deployed from this project directory). A TF_CLI_CONFIG_FILE in the environment is used as is; otherwise scripts/toolchain/env.sh is sourced when present.',
    'The file is written with mode 0600; key material is never printed.',
  ],
  options: [
    { name: 'out', value: '<file>', description: 'Output file (default: ./<env>.kubeconfig or ./<env>-<cluster>.kubeconfig).' },
    { name: 'cdktf-out', value: '<dir>', description: 'Synthesis output directory (default: "output" of cdktf.json, else cdktf.out).' },
  ],
  minPositionals: 1,
  maxPositionals: 2,
  examples: ['capi-openstack kubeconfig example', 'capi-openstack kubeconfig example demo --out ~/.kube/demo.yaml'],
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

  const mgmtStack = `${env}-management`;
  const management = requireOutput(await outputsOf(mgmtStack), mgmtStack, 'kubeconfig');
  if (typeof management !== 'string' || !management.includes('clusters')) throw new CliError(`output "kubeconfig" of stack ${mgmtStack} is not a kubeconfig`);

  let content = management;
  let label = `management cluster of ${env}`;
  if (cluster) {
    const stack = `${env}-${cluster}`;
    const ref = secretRef(requireOutput(await outputsOf(stack), stack, 'kubeconfigSecret'), stack);
    const creds = credentialsFromKubeconfig(management, `output "kubeconfig" of stack ${mgmtStack}`);
    io.err(`kubeconfig: reading secret ${ref.namespace}/${ref.name} from the management cluster…`);
    content = await fetchSecretValue(creds, ref.namespace, ref.name, 'value');
    if (!content.includes('clusters')) throw new CliError(`secret ${ref.namespace}/${ref.name} does not hold a kubeconfig in key "value"`);
    label = `workload cluster ${cluster} of ${env}`;
  }
  writePrivateFile(outFile, content);
  const shown = displayPath(io.cwd, outFile);
  const server = serverOfKubeconfig(content);
  io.out(`wrote ${shown} (${label}${server ? `, API ${server}` : ''}); try: KUBECONFIG=${shown} kubectl get nodes`);
  return 0;
}

/** The `kubeconfigSecret` output: `{namespace, name}` (also accepted as a JSON string). */
export function secretRef(value: unknown, stack: string): { namespace: string; name: string } {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      // reported below
    }
  }
  const o = v as { namespace?: unknown; name?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.namespace !== 'string' || typeof o.name !== 'string' || !o.namespace || !o.name) {
    throw new CliError(`output "kubeconfigSecret" of stack ${stack} is not {namespace, name}`);
  }
  return { namespace: o.namespace, name: o.name };
}
