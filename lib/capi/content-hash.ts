/**
 * Content-addressed names for immutable templates (OpenStackMachineTemplate, KubeadmConfigTemplate).
 *
 * The name carries a short hash of the template spec, so any change of the spec yields a new object;
 * the MachineDeployment / KubeadmControlPlane reference moves to it and CAPI rolls the machines.
 * No hand-bumped `*_GEN` suffixes.
 *
 * Values only known at apply time (cdktf tokens such as a server group id) cannot be hashed at synth
 * time: their token text may differ between two synths of the same configuration. Callers pass them as
 * `opaque` values; each occurrence is replaced by its stable placeholder name before hashing. Such
 * values are assumed stable for the life of the cluster (server groups and the API floating IP are
 * never replaced in place by the workload stack).
 */
import { createHash } from 'crypto';

/** JSON with object keys sorted at every level, `undefined` members dropped: the same data → the same text. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableStringify(v))).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** Replaces every occurrence of each opaque value in every string of `value` by `<<placeholder>>`. */
export function maskOpaque(value: unknown, opaque: Readonly<Record<string, string | undefined>>): unknown {
  const pairs = Object.entries(opaque)
    // very short values (not an address, id or token) would mask unrelated text
    .filter((p): p is [string, string] => typeof p[1] === 'string' && p[1].length >= 6)
    // longest first so a value that contains another one is masked as a whole
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  if (pairs.length === 0) return value;
  const mask = (v: unknown): unknown => {
    if (typeof v === 'string') return pairs.reduce((s, [name, val]) => s.split(val).join(`<<${name}>>`), v);
    if (Array.isArray(v)) return v.map(mask);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)]));
    return v;
  };
  return mask(value);
}

/** First `length` hex characters of the SHA-256 of the stable JSON of `value` (opaque values masked). */
export function contentHash(value: unknown, opaque: Readonly<Record<string, string | undefined>> = {}, length = 8): string {
  return createHash('sha256').update(stableStringify(maskOpaque(value, opaque))).digest('hex').slice(0, length);
}

/** `<base>-<hash>`; throws when the result would not be a valid object name (63 characters). */
export function contentAddressedName(base: string, spec: unknown, opaque: Readonly<Record<string, string | undefined>> = {}): string {
  const name = `${base}-${contentHash(spec, opaque)}`;
  if (name.length > 63) {
    throw new Error(`expected the template name "${name}" to have at most 63 characters, found ${name.length}: shorten the cluster or node group name`);
  }
  return name;
}
