/** Loads and validates environment files. Everything here runs before any construct is created. */
import * as fs from 'fs';
import * as path from 'path';
import { LineCounter, parseDocument, YAMLError } from 'yaml';
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile, textSizeProblem } from './bounded-file';
import { escapeControlCharacters } from './control-characters';
import { ENVIRONMENT_NAME, environmentNameIssue } from './environment-name';
import { ConfigIssue, EnvironmentConfigError } from './errors';
import { namedEnvironment, sharedNameProblems } from './owned-names';
import { EnvironmentConfig } from './resolve';
import { Locator, validateEnvironment } from './validate';
import { positionOf, positionOfKey } from './yaml-positions';
import { collisionMessage, stackCollisions } from './stack-collisions';
import { MAX_ALIAS_USES, MAX_NESTING, tooDeep, unsafeYaml } from './yaml-safety';

/** Parses and validates YAML text; `file` is used in messages and to name the environment. */
export function parseEnvironment(text: string, file: string): EnvironmentConfig {
  const name = path.basename(file).replace(/\.ya?ml$/, '');
  // before the parser sees it: 10 MB of newlines took 48 s and 1.2 GB
  const size = textSizeProblem(text, 'environment file', MAX_SETTINGS_FILE_BYTES);
  if (size) throw new EnvironmentConfigError(file, [{ path: '(file)', message: size, line: 1, column: 1 }]);
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    throw new EnvironmentConfigError(file, [{ path: '(encoding)', message: 'expected UTF-8 text, found NUL characters (a UTF-16 or binary file?); save it as UTF-8', ...linePos(text, nul) }]);
  }
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) throw new EnvironmentConfigError(file, syntaxIssues(doc.errors, counter));
  const issues: ConfigIssue[] = [];
  const extension = /\.ya?ml$/i.exec(file)?.[0];
  if (extension && extension !== extension.toLowerCase()) {
    issues.push({ path: '(file name)', message: `expected the extension .yaml or .yml in lowercase, found "${extension}" (synthesis reads only *.yaml and *.yml files and would skip this one)` });
  } else if (!ENVIRONMENT_NAME.test(name)) {
    issues.push(environmentNameIssue(name, '(file name)'));
  }
  const deep = tooDeep(doc, counter);
  if (deep) throw new EnvironmentConfigError(file, [...issues, deep]);
  const unsafe = unsafeYaml(doc, counter);
  if (unsafe.length > 0) throw new EnvironmentConfigError(file, [...issues, ...unsafe]);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_USES }) ?? {};
  } catch (e) {
    throw new EnvironmentConfigError(file, [
      ...issues,
      { path: '(alias)', message: `expected aliases that expand to at most ${MAX_ALIAS_USES} nodes, found: ${(e as Error).message.slice(0, 120)}`, line: 1, column: 1 },
    ]);
  }
  return validateEnvironment(name, file, data, yamlLocator(doc, counter), issues);
}

/** One issue per distinct syntax error: a nesting too deep for the parser repeated its error dozens of times. */
function syntaxIssues(errors: readonly YAMLError[], counter: LineCounter): ConfigIssue[] {
  const seen = new Set<string>();
  return errors.flatMap((e) => {
    const exhausted = e.code === 'RESOURCE_EXHAUSTION';
    const message = exhausted
      ? `expected mappings and lists nested at most ${MAX_NESTING} levels deep, found nesting too deep for the YAML parser (${e.message.split('\n')[0]})`
      : `expected valid YAML, found a syntax error: ${e.message.split('\n')[0]}`;
    if (exhausted && seen.has(message)) return [];
    seen.add(message);
    const pos = counter.linePos(e.pos[0]);
    return [{ path: exhausted ? '(nesting)' : '', message, line: pos.line, column: pos.col }];
  });
}

function linePos(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** Positions in the YAML text; a problem nothing points at (a missing field) goes to the file's start. */
function yamlLocator(doc: ReturnType<typeof parseDocument>, counter: LineCounter): Locator {
  return {
    at: (at) => positionOf(doc, counter, at),
    atKey: (parent, key) => positionOfKey(doc, counter, parent, key),
    unplaced: { line: 1, column: 1 },
  };
}

/**
 * Reads one environment file: a regular file (a FIFO or a device is named, not read) of at most
 * {@link MAX_SETTINGS_FILE_BYTES}, refused from its size before it is read.
 */
export function loadEnvironmentFile(file: string): EnvironmentConfig {
  const read = readBoundedFile(file, 'environment file', MAX_SETTINGS_FILE_BYTES);
  if ('problem' in read) {
    if (read.reason === 'missing') throw new Error(`Environment file ${escapeControlCharacters(file)} does not exist`);
    throw new EnvironmentConfigError(file, [{ path: '(file)', message: read.problem, line: 1, column: 1 }]);
  }
  const bytes = read.bytes;
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (utf16) {
    throw new EnvironmentConfigError(file, [{ path: '(encoding)', message: `expected UTF-8 text, found UTF-16 (byte order mark ${bytes[0].toString(16).toUpperCase()} ${bytes[1].toString(16).toUpperCase()}); save the file as UTF-8`, line: 1, column: 1 }]);
  }
  return parseEnvironment(bytes.toString('utf8'), file);
}

/**
 * Loads `<dir>/*.yaml`, or only the names in `only` (comma-separated ENVIRONMENT). Collects the
 * problems of every file before throwing, so one run shows everything that is wrong.
 */
export function loadEnvironments(dir: string, only?: readonly string[]): EnvironmentConfig[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new Error(`expected a folder of environment files (<name>.yaml) at ${escapeControlCharacters(dir)}, found none (set ENVIRONMENTS_DIR or run from the project folder)`);
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  const wanted = only && only.length > 0 ? only : undefined;
  if (wanted) {
    const missing = wanted.filter((n) => !files.some((f) => f.replace(/\.ya?ml$/, '') === n));
    if (missing.length > 0) {
      throw new Error(escapeControlCharacters(`ENVIRONMENT names ${missing.map((m) => `"${m}"`).join(', ')} but ${dir} has no such file (found: ${files.join(', ') || 'none'})`));
    }
  }
  const selected = files.filter((f) => !wanted || wanted.includes(f.replace(/\.ya?ml$/, '')));
  const errors: Error[] = [];
  const configs: EnvironmentConfig[] = [];
  for (const f of selected) {
    try {
      configs.push(loadEnvironmentFile(path.join(dir, f)));
    } catch (e) {
      errors.push(e as Error);
    }
  }
  if (errors.length === 0) errors.push(...stackCollisionErrors(configs));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(errors.map((e) => e.message).join('\n'));
  const shared = sharedNameProblems(configs.map((c) => ({ ...namedEnvironment(c), file: c.file })));
  if (shared.length > 0) throw new Error(shared.join('\n'));
  return configs;
}

/**
 * Environment files whose stacks would share a name (one error per file that came later), with
 * the line of the cluster that made the name.
 */
export function stackCollisionErrors(configs: readonly EnvironmentConfig[]): EnvironmentConfigError[] {
  const byFile = new Map<string, ConfigIssue[]>();
  for (const c of stackCollisions(configs)) {
    const file = c.again.config.file;
    const issue: ConfigIssue = { path: c.again.field, message: collisionMessage(c), ...(c.again.cluster ? clusterKeyPosition(file, c.again.cluster) : {}) };
    byFile.set(file, [...(byFile.get(file) ?? []), issue]);
  }
  return [...byFile].map(([file, issues]) => new EnvironmentConfigError(file, issues));
}

function clusterKeyPosition(file: string, cluster: string) {
  try {
    const read = readBoundedFile(file, 'environment file', MAX_SETTINGS_FILE_BYTES);
    if ('problem' in read) return {};
    const counter = new LineCounter();
    return positionOfKey(parseDocument(read.bytes.toString('utf8'), { lineCounter: counter, uniqueKeys: false }), counter, ['clusters'], cluster) ?? {};
  } catch {
    return {}; // the file was read a moment ago; without it the message still names file and field
  }
}
