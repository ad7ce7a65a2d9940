/** Finds environment files from what operators type: a name (`prod`), or a path (`environments/prod.yaml`). */
import * as fs from 'fs';
import * as path from 'path';
import { escapeControlCharacters } from '../../config/control-characters';
import { CliError } from './errors';

export const DEFAULT_ENVIRONMENTS_DIR = 'environments';

/** Path as shown to the operator: relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** Resolves one argument to an existing environment file. */
export function environmentFile(cwd: string, dir: string, arg: string): string {
  const shown = escapeControlCharacters(arg);
  // any case: `prod.YAML` is a file the operator means, not an environment named so
  const looksLikePath = /\.ya?ml$/i.test(arg) || arg.includes('/') || arg.includes(path.sep);
  if (looksLikePath) {
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
