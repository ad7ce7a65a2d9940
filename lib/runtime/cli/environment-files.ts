/**
 * Finds environments from what operators type: a name (`prod`), or a path (`environments/prod.yaml`).
 * A name is an environment file of the directory, else an environment the project's app recorded
 * when it synthesized (its file, or for one built in code its settings).
 */
import * as fs from 'fs';
import * as path from 'path';
import { escapeControlCharacters } from '../../config/control-characters';
import { loadEnvironmentFile } from '../../config/load';
import { environmentFromRecord } from '../../config/recorded-environment';
import { EnvironmentConfig } from '../../config/resolve';
import { CdktfProject } from './cdktf-project';
import { CliError } from './errors';
import { CliIo, displayPath } from './io';

export const DEFAULT_ENVIRONMENTS_DIR = 'environments';

export { displayPath };

/** A path to a file rather than an environment name (any case: `prod.YAML` is a file the operator means, not an environment named so). */
export function looksLikePath(arg: string): boolean {
  return /\.ya?ml$/i.test(arg) || arg.includes('/') || arg.includes(path.sep);
}

/** Resolves one argument to an existing environment file. */
export function environmentFile(cwd: string, dir: string, arg: string): string {
  const shown = escapeControlCharacters(arg);
  if (looksLikePath(arg)) {
    const file = path.resolve(cwd, arg);
    if (!fs.existsSync(file)) throw new CliError(`environment file ${shown} does not exist`);
    if (!fs.statSync(file).isFile()) throw new CliError(`environment file ${shown} is not a file (give a .yaml file or an environment name)`);
    const extension = /\.ya?ml$/i.exec(arg)?.[0];
    if (extension && !/^\.ya?ml$/.test(extension)) {
      throw new CliError(`environment file ${shown}: expected the extension .yaml or .yml in lowercase, found "${extension}" (synthesis reads only *.yaml and *.yml, so it would skip this file); rename it to ${escapeControlCharacters(path.basename(arg, extension))}${extension.toLowerCase()}`);
    }
    return file;
  }
  const base = path.resolve(cwd, dir);
  for (const ext of ['.yaml', '.yml']) {
    const file = path.join(base, `${arg}${ext}`);
    if (fs.existsSync(file)) return file;
  }
  if (!fs.existsSync(base) || !fs.statSync(base).isDirectory()) {
    throw new CliError(`no environment "${shown}": the environment directory ${escapeControlCharacters(displayPath(cwd, base))} does not exist (give a path to a .yaml file, or use --dir to point at the directory)`);
  }
  const found = listEnvironmentFiles(cwd, dir, false).map((f) => path.basename(f).replace(/\.ya?ml$/, ''));
  throw new CliError(escapeControlCharacters(`no environment "${arg}" in ${displayPath(cwd, base)} (found: ${found.length > 0 ? found.join(', ') : 'none'})`));
}

/** Every `*.yaml` / `*.yml` of the directory, sorted. */
export function listEnvironmentFiles(cwd: string, dir: string, required = true): string[] {
  const base = path.resolve(cwd, dir);
  if (!fs.existsSync(base) || !fs.statSync(base).isDirectory()) {
    if (!required) return [];
    throw new CliError(`environment directory ${escapeControlCharacters(displayPath(cwd, base))} does not exist (use --dir to point at it)`);
  }
  return fs
    .readdirSync(base)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(base, f));
}

/**
 * The name to load a file under: relative to the working directory when that resolves to the same
 * file from this process (messages then show what the operator typed), else absolute.
 */
export function loadName(cwd: string, file: string): string {
  const shown = displayPath(cwd, file);
  return path.resolve(shown) === file ? shown : file;
}

/** An environment, loaded and validated, with where it came from. */
export interface LocatedEnvironment {
  readonly config: EnvironmentConfig;
  /** How loader messages name it: the file as loaded, or the app's label for one built in code. */
  readonly shown: string;
  /** How a command's own output names it: the file relative to the working directory, or the label. */
  readonly display: string;
  /** Where its relative paths (existingManagementCluster.kubeconfigFile, …) resolve. */
  readonly baseDir: string;
}

/**
 * The environment an argument names: a file (a path, or `<dir>/<name>.yaml`), else what the
 * project's synthesized app recorded for that name. Invalid settings throw the loader's
 * EnvironmentConfigError (file, line, field, expected, found).
 */
export function locateEnvironment(io: CliIo, dir: string, arg: string, project?: CdktfProject): LocatedEnvironment {
  const fromFile = (file: string) => fileEnvironment(io, file);
  if (looksLikePath(arg) || !project) return fromFile(environmentFile(io.cwd, dir, arg));
  let notFound: CliError;
  try {
    return fromFile(environmentFile(io.cwd, dir, arg));
  } catch (e) {
    if (!(e instanceof CliError)) throw e; // an invalid file is reported as such
    notFound = e;
  }
  const recorded = recordedEnvironment(io, project, arg);
  if (recorded) return recorded;
  const outDir = escapeControlCharacters(displayPath(io.cwd, project.outDir));
  const inApp = project.synthesized()
    ? `; the app synthesized at ${outDir} records none of that name (environments: ${project.recordedEnvironments().join(', ') || 'none'})`
    : `; an environment built in code is read from the app's synthesized output, and there is none at ${outDir}: run \`cdktf synth\` first (or give --app-dir)`;
  throw new CliError(`${notFound.message}${inApp}`, notFound.exitCode);
}

/**
 * Environment `name` as the project's synthesized app recorded it: its file (relative to the
 * project), or its settings validated again; undefined when the app did not record it.
 * @param label how messages name one built in code (default: names the stack file it is recorded in)
 */
export function recordedEnvironment(io: CliIo, project: CdktfProject, name: string, label?: string): LocatedEnvironment | undefined {
  const recorded = recordedSource(project, name);
  if (!recorded) return undefined;
  if ('file' in recorded.source) {
    const file = path.resolve(project.dir, recorded.source.file);
    if (!fs.existsSync(file)) {
      throw new CliError(`environment "${name}": ${recorded.stackFile} names its file ${recorded.source.file}, which does not exist in ${displayPath(io.cwd, project.dir)} (moved? run \`cdktf synth\` again)`);
    }
    return fileEnvironment(io, file);
  }
  const shown = label ?? `"${name}" (built in code, recorded in ${recorded.stackFile})`;
  return { config: environmentFromRecord(name, recorded.source.spec, project.dir, shown), shown, display: shown, baseDir: project.dir };
}

/** An environment file (absolute path), loaded. */
function fileEnvironment(io: CliIo, file: string): LocatedEnvironment {
  const shown = loadName(io.cwd, file);
  return { config: loadEnvironmentFile(shown), shown, display: displayPath(io.cwd, file), baseDir: path.dirname(file) };
}

/** What the synthesized stacks recorded for environment `name`; every stack must agree. */
function recordedSource(project: CdktfProject, name: string) {
  const seen = (project.synthesized()?.stacks ?? []).flatMap((s) => {
    const source = s.records?.environments[name];
    return source ? [{ source, stackFile: s.file, id: s.id }] : [];
  });
  const differing = seen.find((s) => JSON.stringify(s.source) !== JSON.stringify(seen[0].source));
  if (differing) {
    throw new CliError(`environment "${name}" is recorded with different settings in stacks ${seen[0].id} and ${differing.id}: two environments of one name in the app (rename one), or a stale synthesized output (run \`cdktf synth\` again)`);
  }
  return seen[0];
}
