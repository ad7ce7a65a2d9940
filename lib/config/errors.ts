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

/** Thrown when one or more environment files are invalid. Its message fits on one screen. */
export class EnvironmentConfigError extends Error {
  constructor(
    /** The file, or for an environment given in code, its label. */
    public readonly file: string,
    public readonly issues: readonly ConfigIssue[],
    /** Where the environment came from: a file (problems carry lines) or code (field paths only). */
    public readonly origin: 'file' | 'code' = 'file',
  ) {
    super(formatIssues(file, issues, origin));
    this.name = 'EnvironmentConfigError';
  }
}

const MAX_SHOWN = 20;

export function formatIssues(file: string, issues: readonly ConfigIssue[], origin: 'file' | 'code' = 'file'): string {
  const lines = issues.slice(0, MAX_SHOWN).map((i) => {
    const where = i.line ? `${file}:${i.line}:${i.column ?? 1}: ` : origin === 'file' ? `${file}: ` : '';
    return `${where}${i.path || '(root)'}: ${i.message}`;
  });
  if (issues.length > MAX_SHOWN) lines.push(`… and ${issues.length - MAX_SHOWN} more problems in ${file}`);
  const noun = issues.length === 1 ? 'problem' : 'problems';
  return `Invalid environment ${origin === 'file' ? 'file ' : ''}${file} (${issues.length} ${noun}):\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/** Renders a value found in the file for an error message, shortened. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(`${value.slice(0, 57)}...`)} (${value.length} characters)` : JSON.stringify(value);
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
  return `${file}${warning.line ? `:${warning.line}:${warning.column ?? 1}` : ''}: ${warning.path}: ${warning.message}`;
}
