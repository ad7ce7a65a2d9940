/** `validate [env…]`: the same checks, and the same messages, as synthesis. */
import { formatWarning } from '../../../config/errors';
import { loadEnvironmentFile, stackCollisionErrors } from '../../../config/load';
import { namedEnvironment, sharedNameProblems } from '../../../config/owned-names';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, environmentFile, listEnvironmentFiles, loadName } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';

export const validateSpec: CommandSpec = {
  name: 'validate',
  usage: '[env…]',
  summary: 'Check environment files with the same rules and messages as synthesis.',
  details: [
    'Each argument is an environment name (looked up in --dir) or a path to a YAML file. Without arguments every *.yaml of --dir is checked.',
    'Prints "ok  <file> (N clusters)" per valid file (and a "warning:" line per unwise setting: an end-of-life Kubernetes minor, a workload API open to anywhere by default, a management VM in the project of the workload clusters), the precise problems (file:line: field: expected…, found…) of the others. Exit code 1 when any file is invalid.',
  ],
  options: [{ name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` }],
  minPositionals: 0,
  maxPositionals: Number.MAX_SAFE_INTEGER,
  examples: ['capi-openstack validate', 'capi-openstack validate prod staging', 'capi-openstack validate ./other/lab.yaml'],
};

export async function runValidate(args: ParsedArgs, io: CliIo): Promise<number> {
  const dir = stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR;
  const files = args.positionals.length > 0 ? args.positionals.map((a) => environmentFile(io.cwd, dir, a)) : listEnvironmentFiles(io.cwd, dir);
  if (files.length === 0) throw new CliError(`no environment files (*.yaml) in ${dir}`);
  const results = files.map((file) => {
    const shown = loadName(io.cwd, file);
    try {
      return { shown, env: loadEnvironmentFile(shown) };
    } catch (e) {
      return { shown, error: e as Error };
    }
  });
  // files that are valid alone may still name the same stacks as another file (synthesis refuses them)
  const collisions = new Map(stackCollisionErrors(results.flatMap((r) => (r.env ? [r.env] : []))).map((e) => [e.file, e]));
  let invalid = 0;
  const loaded: Parameters<typeof sharedNameProblems>[0][number][] = [];
  for (const { shown, env, error } of results) {
    const refused = error ?? collisions.get(shown);
    if (refused || !env) {
      invalid++;
      io.err((refused as Error).message);
      continue;
    }
    loaded.push({ ...namedEnvironment(env), file: shown });
    const n = env.clusters.length;
    const skipped = Object.keys(env.spec.clusters).length - n;
    io.out(`ok  ${shown} (${n} ${n === 1 ? 'cluster' : 'clusters'}${skipped > 0 ? `, ${skipped} with controlPlane.count 0 skipped` : ''})`);
    for (const w of env.warnings) io.err(formatWarning(shown, w));
  }
  // synthesis loads the files together: two that name resources alike fail it
  const shared = sharedNameProblems(loaded);
  for (const line of shared) io.err(line);
  if (shared.length > 0 && invalid === 0) {
    io.err(`${shared.length} pair(s) of environment files give resources the same names`);
    return 1;
  }
  if (invalid > 0) {
    io.err(`${invalid} of ${files.length} environment ${files.length === 1 ? 'file is' : 'files are'} invalid`);
    return 1;
  }
  return 0;
}
