/**
 * What a YAML document must not do before it becomes a JavaScript object: keys that would touch
 * object prototypes (`__proto__`, `constructor`, `prototype`: a cluster named `__proto__` vanished
 * silently), aliases without an anchor, aliases that contain themselves, and alias expansion
 * beyond a bound (a "billion laughs" file). Each finding carries its line.
 */
import { Document, isAlias, isScalar, LineCounter, Node, visit } from 'yaml';
import { ConfigIssue } from './errors';

/** Keys refused anywhere in an environment, from a file or from code. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Alias uses a file may expand; environment files need a handful at most. */
export const MAX_ALIAS_USES = 200;

export function unsafeYaml(doc: Document, counter: LineCounter): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const at = (node: Node | null | undefined) => {
    const offset = node?.range?.[0];
    if (offset === undefined) return {};
    const p = counter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const anchors = new Map<string, Node>();
  visit(doc, {
    Node(_, node) {
      if (!isAlias(node) && node.anchor) anchors.set(node.anchor, node);
    },
    Alias(_, alias, path) {
      const target = anchors.get(alias.source);
      if (!target) {
        issues.push({ path: '(alias)', message: `expected an alias to an anchor defined above it, found "*${alias.source}" with no "&${alias.source}" before it`, ...at(alias) });
      } else if (path.includes(target)) {
        issues.push({ path: '(alias)', message: `expected an alias outside the node it refers to, found "*${alias.source}" inside "&${alias.source}"`, ...at(alias) });
      }
    },
    Pair(_, pair) {
      if (isScalar(pair.key) && FORBIDDEN_KEYS.has(String(pair.key.value))) {
        issues.push({ path: String(pair.key.value), message: reservedKeyMessage(String(pair.key.value)), ...at(pair.key as Node) });
      }
    },
  });
  return issues;
}

export function reservedKeyMessage(key: string): string {
  return `expected a name other than "${key}" (it is reserved in JavaScript objects)`;
}
