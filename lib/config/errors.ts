import { escapeControlCharacters, shownText } from './control-characters';

/** One problem found in an environment file. */
export interface ConfigIssue {
  /** Dotted field path, e.g. `network.managementCidr` or `clusters.prod.workers[0].count`. */
  readonly path: string;
  /** What was expected and what was found. */
  readonly message: string;
  /** 1-based line in the file, when known. */
  readonly line?: number;
  readonly column?: number;
}

/**
 * Thrown when one or more environment files are invalid. Its message fits on one screen: each
 * issue's field and message come from the input, so they are cut and their control characters
 * escaped (a key with a newline forged a line of its own; a 10 MB key was echoed twice).
 */
export class EnvironmentConfigError extends Error {
  public readonly issues: readonly ConfigIssue[];
  constructor(
    /** The file, or for an environment given in code, its label. */
    public readonly file: string,
    issues: readonly ConfigIssue[],
    /** Where the environment came from: a file (problems carry lines) or code (field paths only). */
    public readonly origin: 'file' | 'code' = 'file',
  ) {
    super(formatIssues(file, issues, origin));
    this.issues = issues.map(shownIssue);
    this.name = 'EnvironmentConfigError';
  }
}

/** Longest field path a message shows (a real one stays under 400, with a 255-character metadata or 317-character label key). */
const MAX_SHOWN_PATH = 500;
/** Longest issue message shown (values in it are cut to far less where they are written). */
const MAX_SHOWN_MESSAGE = 2000;

/** An issue as messages show it: field and message cut, control characters escaped. */
export function shownIssue(issue: ConfigIssue): ConfigIssue {
  const path = shownText(issue.path, MAX_SHOWN_PATH);
  const message = shownText(issue.message, MAX_SHOWN_MESSAGE);
  return path === issue.path && message === issue.message ? issue : { ...issue, path, message };
}

const MAX_SHOWN = 20;

export function formatIssues(file: string, issues: readonly ConfigIssue[], origin: 'file' | 'code' = 'file'): string {
  const name = escapeControlCharacters(file);
  const lines = issues.slice(0, MAX_SHOWN).map(shownIssue).map((i) => {
    const where = i.line ? `${name}:${i.line}:${i.column ?? 1}: ` : origin === 'file' ? `${name}: ` : '';
    return `${where}${i.path || '(root)'}: ${i.message}`;
  });
  if (issues.length > MAX_SHOWN) lines.push(`… and ${issues.length - MAX_SHOWN} more problems in ${name}`);
  const noun = issues.length === 1 ? 'problem' : 'problems';
  return `Invalid environment ${origin === 'file' ? 'file ' : ''}${name} (${issues.length} ${noun}):\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/** Renders a value found in the file for an error message, shortened, control characters escaped. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  // JSON escapes C0 and lone surrogates; DEL, C1 and the separators it leaves as they are
  if (typeof value === 'string') return escapeControlCharacters(value.length > 60 ? `${JSON.stringify(`${value.slice(0, 57)}...`)} (${value.length} characters)` : JSON.stringify(value));
  if (Array.isArray(value)) return `a list (${value.length} items)`;
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${String(value)}`;
}

/** Joins a path of keys and indexes the way operators write it: `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** One warning as a line: `warning: <file>:<line>:<column>: <field>: <message>`. */
export function formatWarning(file: string, warning: ConfigIssue): string {
  return `warning: ${describeWarning(file, warning)}`;
}

/** One warning without the `warning:` label (cdktf prints its own): `<file>:<line>:<column>: <field>: <message>`. */
export function describeWarning(file: string, warning: ConfigIssue): string {
  const w = shownIssue(warning);
  return `${escapeControlCharacters(file)}${w.line ? `:${w.line}:${w.column ?? 1}` : ''}: ${w.path}: ${w.message}`;
}
