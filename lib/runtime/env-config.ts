/**
 * The runtime's way of reading settings from environment variables (the scripts Terraform runs get
 * nothing else): one error class, one exit-code scheme, readers whose messages name the variable,
 * what was expected and what was found, never a secret value.
 */

/** A setting is missing or wrong: reported as one line, exit code EXIT_BAD_CONFIG. */
export class CliConfigError extends Error {}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_BAD_CONFIG = 2;

export type Env = Readonly<Record<string, string | undefined>>;

/** The value, or undefined when unset or blank. */
export function optional(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export function required(env: Env, name: string, what: string): string {
  const v = optional(env, name);
  if (v === undefined) throw new CliConfigError(`${name} is not set (expected ${what})`);
  return v;
}

/** A positive number, or `fallback` when unset. */
export function positive(env: Env, name: string, fallback: number): number {
  const v = optional(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new CliConfigError(`${name} must be a positive number (got '${v}')`);
  return n;
}

/** PEM text with literal `\n` escapes (a value pasted from JSON) turned into line breaks. */
export function unescapePem(value: string): string {
  return !value.includes('\n') && value.includes('\\n') ? value.replace(/\\n/g, '\n') : value;
}

/** Reads the settings; a CliConfigError is reported as `<program>: <message>` and gives undefined. */
export function settingsOrReport<T>(program: string, read: () => T, err: (line: string) => void): T | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof CliConfigError)) throw e;
    err(`${program}: ${e.message}`);
    return undefined;
  }
}
