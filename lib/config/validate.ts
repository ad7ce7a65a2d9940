/**
 * The rules every environment passes, whether it comes from a file or from code: the schema, the
 * cross-field checks, the naming limits, then resolution of defaults and files. Only where a
 * problem is reported differs (a line of the file, or just the field).
 */
import { z } from 'zod';
import { findCloudEntry } from './clouds-file';
import { controlCharacterFindings, controlCharacterMessage, shownText } from './control-characters';
import { crossCheck } from './cross-checks';
import { nameClashIssues } from './name-clashes';
import { environmentSchema } from './environment-schema';
import { ConfigIssue, describeFound, EnvironmentConfigError, formatPath } from './errors';
import { DNS_LABEL_MAX_LENGTH, clusterResourceName, environmentResourcePrefix } from './naming';
import { EnvironmentConfig, resolveEnvironment, withFeatureFlags } from './resolve';
import { suggestField } from './suggest-field';
import { userDataSizeIssues } from './user-data-size';

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Where the input places a field, if it can say. */
export interface Locator {
  at(path: readonly PropertyKey[]): Position | undefined;
  /** The key itself (for unknown fields). */
  atKey(parent: readonly PropertyKey[], key: string): Position | undefined;
  /** Where a problem goes that nothing in the input points at (a missing field). */
  readonly unplaced?: Position;
}

/** Validates `data` as environment `name` (from `file`) and resolves it; throws every problem at once. */
export function validateEnvironment(name: string, file: string, data: unknown, locate: Locator, earlier: readonly ConfigIssue[] = [], origin: 'file' | 'code' = 'file', baseDir?: string): EnvironmentConfig {
  const issues: ConfigIssue[] = [...earlier];
  const placed = (issue: ConfigIssue): ConfigIssue => (issue.line === undefined && locate.unplaced ? { ...issue, ...locate.unplaced } : issue);
  // one check for every string field and key: control characters are refused wherever a field's own
  // rule would let them through (a field that refuses them already says so, with the value escaped)
  const controls = controlCharacterIssues(data, locate).map(placed);
  const parsed = environmentSchema.safeParse(data, { reportInput: true });
  if (!parsed.success || controls.length > 0) {
    const schemaIssues = parsed.success ? [] : parsed.error.issues.flatMap((i) => toConfigIssues(i, locate)).map(placed);
    const reported = new Set(schemaIssues.map((i) => i.path));
    issues.push(...controls.filter((c) => !reported.has(c.path)), ...schemaIssues);
    throw new EnvironmentConfigError(file, issues, origin);
  }
  const spec = withFeatureFlags(parsed.data);
  issues.push(...[...crossCheck(spec), ...nameClashIssues(spec, name)].map((i) => placed({ path: formatPath(i.path), message: i.message, ...locate.at(i.path) })));
  for (const cluster of Object.keys(parsed.data.clusters)) {
    const ns = clusterResourceName(environmentResourcePrefix(parsed.data.prefix, name), cluster);
    if (ns.length > DNS_LABEL_MAX_LENGTH) {
      issues.push({ path: `clusters.${cluster}`, message: `expected prefix-environment-cluster to fit a ${DNS_LABEL_MAX_LENGTH}-character Kubernetes namespace, found "${ns}" (${ns.length})`, ...locate.at(['clusters', cluster]) });
    }
  }
  if (issues.length > 0) throw new EnvironmentConfigError(file, issues, origin);
  let resolved: EnvironmentConfig;
  try {
    resolved = resolveEnvironment(name, file, parsed.data, findCloudEntry, origin, baseDir);
  } catch (e) {
    // problems of the files an environment names (clouds.yaml, PEM files) point at the field naming them
    if (!(e instanceof EnvironmentConfigError)) throw e;
    throw new EnvironmentConfigError(file, e.issues.map((i) => placed(i.line === undefined ? { ...i, ...locate.at(pathSteps(i.path)) } : i)), origin);
  }
  // what the files read (certificates) counts too: user data is measured once they are resolved
  const tooBig = userDataSizeIssues(resolved);
  if (tooBig.length > 0) throw new EnvironmentConfigError(file, tooBig.map((i) => placed({ path: formatPath(i.path), message: i.message, ...locate.at(i.path) })), origin);
  // Warnings get the line of their field, like errors.
  const warnings = resolved.warnings.map((w) => ({ ...w, ...locate.at(pathSteps(w.path)) }));
  return { ...resolved, warnings };
}

/**
 * The steps of a field path as issues write it (`registryMirrors[0].caCertificateFile` → the list
 * item's field, not the file's first line); a note after the field (`cloud (cacert of …)`) is dropped.
 */
function pathSteps(field: string): PropertyKey[] {
  const head = /^[^\s(]+/.exec(field)?.[0] ?? '';
  return head.split('.').flatMap((part) => {
    const m = /^([^[\]]*)((\[\d+\])*)$/.exec(part);
    if (!m) return [part];
    return [...(m[1] ? [m[1]] : []), ...[...m[2].matchAll(/\[(\d+)\]/g)].map((i) => Number(i[1]))];
  });
}

function controlCharacterIssues(data: unknown, locate: Locator): ConfigIssue[] {
  return controlCharacterFindings(data).map((f) => ({
    path: formatPath(f.path),
    message: controlCharacterMessage(f),
    ...(f.inKey ? locate.atKey(f.path.slice(0, -1), String(f.path[f.path.length - 1])) : locate.at(f.path)),
  }));
}

function toConfigIssues(issue: z.core.$ZodIssue, locate: Locator): ConfigIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key, i) => ({
      path: formatPath([...issue.path, key]),
      // "did you mean" helps with a few typos; for a flood of keys only the shown ones get it
      message: unknownFieldMessage(issue.path, key, i < SUGGESTED_KEYS),
      ...locate.atKey(issue.path, key),
    }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // Report the branch that got furthest instead of "invalid input": of the branches that took the
    // value's type (a mapping where `true` or a mapping is allowed), the one with the fewest problems.
    const tookType = issue.errors.filter((e) => !(e.length === 1 && e[0].code === 'invalid_type' && e[0].path.length === 0));
    const best = (tookType.length > 0 ? tookType : issue.errors).reduce((a, b) => (b.length < a.length ? b : a));
    if (best.length > 0 && best.length < 3) {
      return best.flatMap((sub) => toConfigIssues({ ...sub, path: [...issue.path, ...sub.path] } as z.core.$ZodIssue, locate));
    }
  }
  if (issue.code === 'invalid_key' && issue.issues.length > 0) {
    // a record key that breaks its rule (`clusters.Demo`): say the rule, not "Invalid key in record"
    const noun = issue.path.length === 2 && issue.path[0] === 'clusters' ? 'a cluster name' : 'a key';
    const rule = expectation(issue.issues[0] as z.core.$ZodIssue).replace(/^expected /, '');
    return [{ path: formatPath(issue.path), message: `expected ${noun}: ${rule}, found ${describeFound(issue.path[issue.path.length - 1])}`, ...locate.atKey(issue.path.slice(0, -1), String(issue.path[issue.path.length - 1])) }];
  }
  const input = (issue as { input?: unknown }).input;
  return [{ path: formatPath(issue.path), message: `${expectation(issue)}, found ${describeFound(input)}`, ...locate.at(issue.path) }];
}

/** zod's own wording ("Too big: expected string to have <=255 characters") in the loader's words. */
function bound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const limit = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' || issue.origin === 'set' ? ' items' : '';
  if (issue.code === 'too_small' && limit === 1 && unit !== '') return issue.origin === 'string' ? 'expected a non-empty value' : 'expected at least one item';
  return `expected ${issue.code === 'too_big' ? 'at most' : 'at least'} ${limit}${unit}`;
}

function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      // a field may say what it is for (a required mapping whose purpose is not obvious)
      if (issue.message.startsWith('expected')) return issue.message;
      return `expected ${issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_big':
    case 'too_small':
      return issue.message.startsWith('expected') ? issue.message : bound(issue);
    default:
      return issue.message.startsWith('expected') ? issue.message : `expected valid input (${issue.message})`;
  }
}

/** Unknown keys of one mapping that get a "did you mean" (each costs an edit distance per known field). */
const SUGGESTED_KEYS = 100;

function unknownFieldMessage(at: readonly PropertyKey[], key: string, suggest: boolean): string {
  const suggestion = suggest ? suggestField(at, key) : undefined;
  const shown = shownText(key, 80);
  return suggestion ? `unknown field "${shown}" (did you mean "${suggestion}"?)` : `unknown field "${shown}" (check the spelling; see environments/environment.schema.json)`;
}
