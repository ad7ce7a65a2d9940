/** `validate [env…]`: the same checks, and the same messages, as synthesis. */
import * as fs from 'fs';
import * as path from 'path';
import { formatWarning } from '../../../config/errors';
import { loadEnvironmentFile, stackCollisionErrors } from '../../../config/load';
import { namedEnvironment, sharedNameProblems } from '../../../config/owned-names';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { runApp } from '../app-run';
import { CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, environmentFile, listEnvironmentFiles, LocatedEnvironment, loadName, recordedEnvironment } from '../environment-files';
import { recordedStacks } from '../environment-stacks';
import { CliError } from '../errors';
import { CliIo, displayPath } from '../io';

export const validateSpec: CommandSpec = {
  name: 'validate',
  usage: '[env…]',
  summary: 'Check environment files with the same rules and messages as synthesis.',
  details: [
    'Each argument is an environment name (looked up in --dir) or a path to a YAML file. Without arguments every *.yaml of --dir is checked.',
    'With --app-dir: the environments the app of that cdktf project builds, environments built in code included. The app is run as `cdktf synth` runs it (the "app" command of its cdktf.json, into a temporary output directory): its own failure (an invalid environment throws there) is shown; then every environment its ManagementCluster and WorkloadCluster constructs recorded (or those named) is checked again, with the warnings of its settings and of the app\'s constructs (cdktf annotations).',
    'Prints "ok  <file> (N clusters)" per valid file (and a "warning:" line per unwise setting: an end-of-life Kubernetes minor, a workload API open to anywhere by default, a management VM in the project of the workload clusters, provider manifests not pinned), the precise problems (file:line: field: expected…, found…) of the others. Exit code 1 when any file is invalid.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'app-dir', value: '<dir>', description: 'Check what the app of this cdktf project builds instead of files: runs the app (see above).' },
  ],
  minPositionals: 0,
  maxPositionals: Number.MAX_SAFE_INTEGER,
  examples: ['capi-openstack validate', 'capi-openstack validate prod staging', 'capi-openstack validate ./other/lab.yaml', 'capi-openstack validate --app-dir .'],
};

export async function runValidate(args: ParsedArgs, io: CliIo): Promise<number> {
  const appDir = stringOption(args, 'app-dir');
  if (appDir !== undefined) return validateApp(path.resolve(io.cwd, appDir), args.positionals, io);
  const dir = stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR;
  let files: string[];
  try {
    files = args.positionals.length > 0 ? args.positionals.map((a) => environmentFile(io.cwd, dir, a)) : listEnvironmentFiles(io.cwd, dir);
  } catch (e) {
    // a cdktf project without environment files: its environments may be built in code
    if (e instanceof CliError && fs.existsSync(path.join(io.cwd, 'cdktf.json'))) throw new CliError(`${e.message}; for the environments your app builds (in code too): capi-openstack validate --app-dir .`, e.exitCode);
    throw e;
  }
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

/** `validate --app-dir`: runs the app, then checks each environment it recorded as the files are checked. */
async function validateApp(dir: string, names: readonly string[], io: CliIo): Promise<number> {
  const shownDir = displayPath(io.cwd, dir) || '.';
  io.err(`validate: running the app of ${shownDir} (as cdktf synth does)…`);
  const run = await runApp(dir, io);
  if (!run.ok) {
    io.err(appFailure(run.stderr));
    io.err(`the app of ${shownDir} failed (exit ${run.code ?? 'signal'}): nothing it builds can be deployed`);
    return 1;
  }
  const project = new CdktfProject(dir, dir, io.cwd, run.app);
  const recorded = project.recordedEnvironments();
  if (recorded.length === 0) throw new CliError(`the app of ${shownDir} synthesized ${run.app.stacks.length} stack(s) (${run.app.stacks.map((s) => s.id).join(', ')}), none with a ManagementCluster or WorkloadCluster: nothing to check`);
  const unknown = names.filter((n) => !recorded.includes(n));
  if (unknown.length > 0) throw new CliError(`the app of ${shownDir} builds no environment ${unknown.map((n) => `"${n}"`).join(', ')} (it builds: ${recorded.join(', ')})`);
  let invalid = 0;
  const loaded: Parameters<typeof sharedNameProblems>[0][number][] = [];
  const warned: string[] = [];
  for (const name of names.length > 0 ? names : recorded) {
    let located: LocatedEnvironment | undefined;
    try {
      located = recordedEnvironment(io, project, name, `"${name}" (built in code by the app)`)!;
    } catch (e) {
      invalid++;
      io.err((e as Error).message);
      continue;
    }
    const env = located.config;
    loaded.push({ ...namedEnvironment(env), file: located.display });
    const stacks = recordedStacks(project, io.cwd, name)!.stacks;
    const n = env.clusters.length;
    io.out(`ok  ${located.display} (${n} ${n === 1 ? 'cluster' : 'clusters'}; stacks ${[...new Set(stacks.map((s) => s.id))].join(', ')})`);
    for (const w of env.warnings) {
      warned.push(w.message);
      io.err(formatWarning(located.shown, w));
    }
  }
  // what the constructs said at synthesis (a warning already printed from the settings is not repeated)
  let errors = 0;
  for (const stack of run.app.stacks) {
    for (const a of stack.annotations) {
      if (a.level === 'info' || warned.some((m) => a.message.includes(m))) continue;
      if (a.level === 'error') errors++;
      io.err(`${a.level}: ${a.constructPath}: ${a.message}`);
    }
  }
  for (const line of sharedNameProblems(loaded)) {
    errors++;
    io.err(line);
  }
  if (invalid + errors > 0) {
    io.err(`the app of ${shownDir}: ${invalid} invalid environment(s), ${errors} error(s)`);
    return 1;
  }
  return 0;
}

/** The error the app died of (its message block, without Node's source excerpt and stack frames), else its last lines. */
export function appFailure(stderr: string): string {
  const lines = stderr.replace(/\x1b\[[0-9;]*m/g, '').split(/\r?\n/);
  const start = lines.findIndex((l) => /^[A-Za-z]*Error(\s*\[[^\]]*\])?: /.test(l));
  if (start >= 0) {
    const end = lines.findIndex((l, i) => i > start && /^\s+at /.test(l));
    return lines.slice(start, end < 0 ? undefined : end).join('\n').trimEnd();
  }
  return lines.filter((l) => l.trim() !== '').slice(-20).join('\n') || '(the app printed nothing)';
}
