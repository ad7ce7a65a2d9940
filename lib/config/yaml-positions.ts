/** Maps a field path of a parsed YAML document back to its line and column. */
import { Document, isMap, isPair, isScalar, isSeq, LineCounter, Node } from 'yaml';

export interface Position {
  readonly line: number;
  readonly column: number;
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
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
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

/** Position of a map key itself (used for unknown keys). */
export function positionOfKey(doc: Document, counter: LineCounter, parent: readonly PropertyKey[], key: string): Position | undefined {
  const parentNode = parent.length === 0 ? doc.contents : doc.getIn(parent as unknown[], true);
  if (isMap(parentNode)) {
    const pair = parentNode.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    const offset = (pair?.key as Node | undefined)?.range?.[0];
    if (offset !== undefined) {
      const pos = counter.linePos(offset);
      return { line: pos.line, column: pos.col };
    }
  }
  return positionOf(doc, counter, parent);
}
