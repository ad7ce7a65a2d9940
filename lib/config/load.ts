/** Loads and validates environment files. Everything here runs before any construct is created. */
import * as fs from 'fs';
import * as path from 'path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { findCloudEntry } from './clouds-file';
import { crossCheck } from './cross-checks';
import { DNS_LABEL_MAX_LENGTH, clusterResourceName, environmentResourcePrefix } from './naming';
import { environmentSchema } from './environment-schema';
import { ConfigIssue, describeFound, EnvironmentConfigError, formatPath } from './errors';
import { EnvironmentConfig, resolveEnvironment } from './resolve';
import { positionOf, positionOfKey } from './yaml-positions';
import { MAX_ALIAS_USES, unsafeYaml } from './yaml-safety';

const ENV_NAME = /^[a-z]([-a-z0-9]{0,22}[a-z0-9])?$/;

/** Parses and validates YAML text; `file` is used in messages and to name the environment. */
export function parseEnvironment(text: string, file: string): EnvironmentConfig {
  const name = path.basename(file).replace(/\.ya?ml$/, '');
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new EnvironmentConfigError(
      file,
      doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return { path: '', message: `expected valid YAML, found a syntax error: ${e.message.split('\n')[0]}`, line: pos.line, column: pos.col };
      }),
    );
  }
  const issues: ConfigIssue[] = [];
  if (!ENV_NAME.test(name)) {
    issues.push({ path: '(file name)', message: `expected an environment name of lowercase letters, digits and "-" (at most 24, it names stacks and resources), found "${name}"` });
  }
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
  const parsed = environmentSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    issues.push(...parsed.error.issues.flatMap((i) => toConfigIssues(i, doc, counter)).map(located));
    throw new EnvironmentConfigError(file, issues);
  }
  const cross = crossCheck(parsed.data).map((i) => located({ path: formatPath(i.path), message: i.message, ...positionOf(doc, counter, i.path) }));
  issues.push(...cross);
  for (const cluster of Object.keys(parsed.data.clusters)) {
    const ns = clusterResourceName(environmentResourcePrefix(parsed.data.prefix, name), cluster);
    if (ns.length > DNS_LABEL_MAX_LENGTH) {
      issues.push({ path: `clusters.${cluster}`, message: `expected prefix-environment-cluster to fit a ${DNS_LABEL_MAX_LENGTH}-character Kubernetes namespace, found "${ns}" (${ns.length})`, ...positionOf(doc, counter, ['clusters', cluster]) });
    }
  }
  if (issues.length > 0) throw new EnvironmentConfigError(file, issues);
  const resolved = resolveEnvironment(name, file, parsed.data, findCloudEntry);
  // Warnings get the line of their field, like errors.
  const warnings = resolved.warnings.map((w) => ({ ...w, ...positionOf(doc, counter, w.path.split('.')) }));
  return { ...resolved, warnings };
}

/** An issue nothing in the file points at (a missing field of an empty file) is put at its start. */
function located(issue: ConfigIssue): ConfigIssue {
  return issue.line === undefined ? { ...issue, line: 1, column: 1 } : issue;
}

function toConfigIssues(issue: z.core.$ZodIssue, doc: ReturnType<typeof parseDocument>, counter: LineCounter): ConfigIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: formatPath([...issue.path, key]),
      message: `unknown field "${key}" (check the spelling; see environments/environment.schema.json)`,
      ...positionOfKey(doc, counter, issue.path, key),
    }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // Report the branch that got furthest instead of "invalid input".
    const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
    if (best.length > 0 && best.length < 3) {
      return best.flatMap((sub) => toConfigIssues({ ...sub, path: [...issue.path, ...sub.path] } as z.core.$ZodIssue, doc, counter));
    }
  }
  const input = (issue as { input?: unknown }).input;
  return [{ path: formatPath(issue.path), message: `${expectation(issue)}, found ${describeFound(input)}`, ...positionOf(doc, counter, issue.path) }];
}

function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message.startsWith('expected') ? issue.message : `expected valid input (${issue.message})`;
  }
}

/** Reads one environment file. */
export function loadEnvironmentFile(file: string): EnvironmentConfig {
  if (!fs.existsSync(file)) throw new Error(`Environment file ${file} does not exist`);
  if (!fs.statSync(file).isFile()) throw new Error(`Environment file ${file} is not a file`);
  return parseEnvironment(fs.readFileSync(file, 'utf8'), file);
}

/**
 * Loads `<dir>/*.yaml`, or only the names in `only` (comma-separated ENVIRONMENT). Collects the
 * problems of every file before throwing, so one run shows everything that is wrong.
 */
export function loadEnvironments(dir: string, only?: readonly string[]): EnvironmentConfig[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new Error(`expected a folder of environment files (<name>.yaml) at ${dir}, found none (set ENVIRONMENTS_DIR or run from the project folder)`);
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  const wanted = only && only.length > 0 ? only : undefined;
  if (wanted) {
    const missing = wanted.filter((n) => !files.some((f) => f.replace(/\.ya?ml$/, '') === n));
    if (missing.length > 0) {
      throw new Error(`ENVIRONMENT names ${missing.map((m) => `"${m}"`).join(', ')} but ${dir} has no such file (found: ${files.join(', ') || 'none'})`);
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
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(errors.map((e) => e.message).join('\n'));
  return configs;
}
