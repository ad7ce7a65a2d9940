/** Maps a field path of a parsed YAML document back to its line and column. */
import { Document, isMap, isPair, isScalar, isSeq, LineCounter, Node, Pair, YAMLMap } from 'yaml';

export interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * The pairs of each mapping by key, built once per mapping: looking every key up by scanning made
 * a file with 100 000 problems quadratic (minutes to load).
 */
const pairsByKey = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: PropertyKey): Pair | undefined {
  let index = pairsByKey.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) if (isPair(p) && isScalar(p.key) && !index.has(String(p.key.value))) index.set(String(p.key.value), p);
    pairsByKey.set(map, index);
  }
  return index.get(String(key));
}

/**
 * Finds the deepest node on `path` that exists in the document and returns where it starts.
 * For a key that exists, the position of its value; for a missing key, the position of its parent.
 */
export function positionOf(doc: Document, counter: LineCounter, path: readonly PropertyKey[]): Position | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined = (doc.contents as Node | null)?.range?.[0];
  for (const key of path) {
    let next: unknown;
    if (isMap(node)) {
      const pair = pairOf(node, key);
      if (pair) {
        next = pair.value ?? pair.key;
        offset = (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node).range?.[0] ?? offset;
      }
    } else if (isSeq(node) && typeof key === 'number') {
      next = node.items[key];
      offset = (next as Node | undefined)?.range?.[0] ?? offset;
    }
    if (next === undefined) break;
    node = next;
  }
  if (offset === undefined) return undefined;
  const pos = counter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** The node at `path`, if every step exists. */
function nodeAt(doc: Document, path: readonly PropertyKey[]): unknown {
  let node: unknown = doc.contents;
  for (const key of path) {
    if (isMap(node)) node = pairOf(node, key)?.value;
    else if (isSeq(node) && typeof key === 'number') node = node.items[key];
    else return undefined;
  }
  return node;
}

/** Position of a map key itself (used for unknown keys). */
export function positionOfKey(doc: Document, counter: LineCounter, parent: readonly PropertyKey[], key: string): Position | undefined {
  const parentNode = nodeAt(doc, parent);
  if (isMap(parentNode)) {
    const offset = (pairOf(parentNode, key)?.key as Node | undefined)?.range?.[0];
    if (offset !== undefined) {
      const pos = counter.linePos(offset);
      return { line: pos.line, column: pos.col };
    }
  }
  return positionOf(doc, counter, parent);
}
