/** "Did you mean" for unknown fields: the closest field the schema knows at the same place. */
import { environmentJsonSchema } from './json-schema';

interface SchemaNode {
  readonly properties?: Record<string, SchemaNode>;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
}

let schema: SchemaNode | undefined;
/** By path: a file with 100 000 unknown keys asks 100 000 times for the same place. */
const fieldsAt = new Map<string, string[]>();

/** The fields allowed in the object at `path` (map keys and list indexes walk through). */
export function knownFields(path: readonly PropertyKey[]): string[] {
  const cacheKey = JSON.stringify(path.map((k) => (typeof k === 'number' ? 0 : String(k))));
  let fields = fieldsAt.get(cacheKey);
  if (!fields) {
    fields = fieldsOf(path);
    if (fieldsAt.size < 1000) fieldsAt.set(cacheKey, fields);
  }
  return fields;
}

function fieldsOf(path: readonly PropertyKey[]): string[] {
  schema ??= environmentJsonSchema('input') as SchemaNode;
  let nodes: SchemaNode[] = [schema];
  for (const key of path) {
    nodes = nodes.flatMap((n) => [n, ...(n.anyOf ?? [])]).flatMap((n) => {
      if (typeof key === 'number') return n.items ? [n.items] : [];
      const prop = n.properties?.[String(key)];
      if (prop) return [prop];
      return typeof n.additionalProperties === 'object' ? [n.additionalProperties] : [];
    });
  }
  return [...new Set(nodes.flatMap((n) => [n, ...(n.anyOf ?? [])]).flatMap((n) => Object.keys(n.properties ?? {})))];
}

/** The known field closest to `key` (at most a third of its letters apart), if any. */
export function suggestField(path: readonly PropertyKey[], key: string): string | undefined {
  if (key.length > 100) return undefined; // no field is that long; the distance would cost length²
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best: { field: string; distance: number } | undefined;
  for (const field of knownFields(path)) {
    if (Math.abs(field.length - key.length) > limit) continue; // the distance is at least the difference in length
    const distance = editDistance(key.toLowerCase(), field.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}
