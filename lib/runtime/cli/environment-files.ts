/** Finds environment files from what operators type: a name (`prod`), or a path (`environments/prod.yaml`). */
import * as fs from 'fs';
import * as path from 'path';
import { CliError } from './errors';

export const DEFAULT_ENVIRONMENTS_DIR = 'environments';

/** Path as shown to the operator: relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** Resolves one argument to an existing environment file. */
export function environmentFile(cwd: string, dir: string, arg: string): string {
  const looksLikePath = /\.ya?ml$/.test(arg) || arg.includes('/') || arg.includes(path.sep);
  if (looksLikePath) {
    const file = path.resolve(cwd, arg);
    if (!fs.existsSync(file)) throw new CliError(`environment file ${arg} does not exist`);
    if (!fs.statSync(file).isFile()) throw new CliError(`environment file ${arg} is not a file (give a .yaml file or an environment name)`);
    return file;
  }
  const base = path.resolve(cwd, dir);
  for (const ext of ['.yaml', '.yml']) {
    const file = path.join(base, `${arg}${ext}`);
    if (fs.existsSync(file)) return file;
  }
  const found = listEnvironmentFiles(cwd, dir, false).map((f) => path.basename(f).replace(/\.ya?ml$/, ''));
  throw new CliError(
    `no environment "${arg}" in ${displayPath(cwd, base)} (found: ${found.length > 0 ? found.join(', ') : 'none'})`,
  );
}

/** Every `*.yaml` / `*.yml` of the directory, sorted. */
export function listEnvironmentFiles(cwd: string, dir: string, required = true): string[] {
  const base = path.resolve(cwd, dir);
  if (!fs.existsSync(base) || !fs.statSync(base).isDirectory()) {
    if (!required) return [];
    throw new CliError(`environment directory ${displayPath(cwd, base)} does not exist (use --dir to point at it)`);
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
