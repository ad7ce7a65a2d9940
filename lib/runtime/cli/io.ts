import * as path from 'path';

/** Where a command writes. Commands never touch process.stdout/stderr directly, so tests capture everything. */
export interface CliIo {
  /** Results (tables, "ok" lines, JSON). */
  readonly out: (line: string) => void;
  /** Progress, reports and errors. */
  readonly err: (line: string) => void;
  /** Working directory relative paths are resolved against. */
  readonly cwd: string;
  /** Environment variables (TF_CLI_CONFIG_FILE, TERRAFORM_BINARY_NAME, ...). */
  readonly env: NodeJS.ProcessEnv;
}

/** Collects output in memory (tests, and callers that want the text). */
export function memoryIo(cwd: string, env: NodeJS.ProcessEnv = process.env): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, cwd, env, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

/** Path as shown to the operator: relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}
