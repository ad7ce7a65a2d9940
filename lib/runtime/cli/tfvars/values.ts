/** Reading the loosely typed values of a tfvars file (the old tool mixed `true`, `"true"` and version strings). */
import { z } from 'zod';
import { describeFound } from '../../../config/errors';

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
export const fail = <T>(reason: string): Checked<T> => ({ ok: false, reason });

/** `"<flavor>"`, `"<v1.XX.XX>"`: unfilled values of the old sample file. */
const PLACEHOLDER = /<[^<>]*>/;

/** Why a value cannot be used at all (placeholder, Terraform expression), looking into lists and maps; undefined = literal value. */
export function unusable(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (PLACEHOLDER.test(value)) return `unfilled placeholder ${JSON.stringify(value)} of the sample file`;
    if (value.includes('${')) return `Terraform expression ${JSON.stringify(value)}; only literal values can be converted`;
    if (value.includes('%{')) return `Terraform template directive ${JSON.stringify(value)}; only literal values can be converted`;
    return undefined;
  }
  if (Array.isArray(value)) {
    for (const v of value) {
      const r = unusable(v);
      if (r) return r;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) {
      const r = unusable(v);
      if (r) return r;
    }
  }
  return undefined;
}

export function asString(value: unknown): Checked<string> {
  if (typeof value === 'string') return ok(value);
  if (typeof value === 'number') return ok(String(value));
  return fail(`expected a string, found ${describeFound(value)}`);
}

export function asBool(value: unknown): Checked<boolean> {
  if (typeof value === 'boolean') return ok(value);
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return ok(value.trim().toLowerCase() === 'true');
  return fail(`expected true or false, found ${describeFound(value)}`);
}

export function asInt(value: unknown): Checked<number> {
  if (typeof value === 'number' && Number.isInteger(value)) return ok(value);
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return ok(Number(value));
  return fail(`expected a whole number, found ${describeFound(value)}`);
}

export function asStringList(value: unknown): Checked<string[]> {
  if (!Array.isArray(value)) return fail(`expected a list of strings, found ${describeFound(value)}`);
  const bad = value.find((v) => typeof v !== 'string');
  if (bad !== undefined) return fail(`expected a list of strings, found an item ${describeFound(bad)}`);
  return ok(value as string[]);
}

/** Server metadata: values may be numbers or booleans in HCL; Nova stores strings. */
export function asStringMap(value: unknown): Checked<Record<string, string>> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return fail(`expected a map, found ${describeFound(value)}`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else return fail(`expected string values, found ${describeFound(v)} for "${k}"`);
  }
  return ok(out);
}

/** An on/off switch of the old tool that could also carry a version: `true`, `"false"`, `"v1.14.4"`. */
export type Toggle = { readonly enabled: boolean; readonly version?: string };

export function asToggle(value: unknown): Checked<Toggle> {
  const b = asBool(value);
  if (b.ok) return ok({ enabled: b.value });
  if (typeof value === 'string' && /^v?\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.-]+)?$/.test(value.trim())) return ok({ enabled: true, version: value.trim() });
  return fail(`expected true, false or a version like v1.2.3, found ${describeFound(value)}`);
}

/** `1.6.3` → `v1.6.3` (the old tool wrote controller versions without the v). */
export function withV(version: string): string {
  return /^\d/.test(version) ? `v${version}` : version;
}

/** Runs a field schema of the environment file on a value; returns the reason when it does not fit. */
export function schemaProblem(schema: z.ZodType, value: unknown): string | undefined {
  const r = schema.safeParse(value);
  if (r.success) return undefined;
  const issue = r.error.issues[0];
  const where = issue.path.length > 0 ? ` (item ${issue.path.map(String).join('.')})` : '';
  const found = issue.path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined), value);
  let expected = issue.message;
  if (!expected.startsWith('expected')) {
    expected = issue.code === 'invalid_type' ? `expected a ${issue.expected}` : issue.code === 'invalid_value' ? `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` : `expected valid input (${issue.message})`;
  }
  return `${expected}${where}, found ${describeFound(found)}`;
}
