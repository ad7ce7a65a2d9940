/**
 * What a YAML document must not do before it becomes a JavaScript object: keys that would touch
 * object prototypes (`__proto__`, `constructor`, `prototype`: a cluster named `__proto__` vanished
 * silently), aliases without an anchor, aliases that contain themselves, and alias expansion
 * beyond a bound (a "billion laughs" file), keys given through an alias or as a mapping, an anchor
 * defined twice (the duplicate-key check resolved `? *k` by the last definition while the parser
 * took the one before it: a second key smuggled past the check replaced a cluster's settings),
 * tags the loader does not know (`!!js/function` was ignored silently) and nesting thousands of
 * levels deep. Each finding carries its line.
 */
import { Document, isAlias, isCollection, isPair, isScalar, LineCounter, Node, visit } from 'yaml';
import { shownText } from './control-characters';
import { ConfigIssue, formatPath } from './errors';

/** Keys refused anywhere in an environment, from a file or from code. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Alias uses a file may expand; environment files need a handful at most. */
export const MAX_ALIAS_USES = 200;
/** Nesting a file may use; environment files need about 8 levels (recursive steps later would overflow on thousands). */
export const MAX_NESTING = 64;

/** The first node nested deeper than {@link MAX_NESTING}, found without recursion. */
export function tooDeep(doc: Document, counter: LineCounter): ConfigIssue | undefined {
  const stack: [unknown, number][] = [[doc.contents, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!isCollection(node)) continue;
    if (depth > MAX_NESTING) {
      const p = counter.linePos((node as Node).range?.[0] ?? 0);
      return { path: '(nesting)', message: `expected mappings and lists nested at most ${MAX_NESTING} levels deep, found deeper nesting`, line: p.line, column: p.col };
    }
    for (const item of node.items) {
      if (isPair(item)) stack.push([item.key, depth + 1], [item.value, depth + 1]);
      else stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

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
      if (!node.anchor) return;
      const first = anchors.get(node.anchor);
      if (first) {
        issues.push({ path: '(anchor)', message: `expected each anchor defined once, found "&${shownText(node.anchor, 60)}" again (first defined on line ${counter.linePos(first.range?.[0] ?? 0).line}); rename one of them`, ...at(node) });
      } else {
        anchors.set(node.anchor, node);
      }
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
      // a key given through an alias (`? *k : v`) is the anchored node
      const key = isAlias(pair.key) ? anchors.get(pair.key.source) : pair.key;
      if (isScalar(key) && FORBIDDEN_KEYS.has(String(key.value))) {
        issues.push({ path: String(key.value), message: reservedKeyMessage(String(key.value)), ...at(pair.key as Node) });
      } else if (key !== undefined && key !== null && !isScalar(key)) {
        issues.push({ path: '(key)', message: 'expected a plain key (a name), found a mapping or list used as a key', ...at(pair.key as Node) });
      } else if (isAlias(pair.key)) {
        // a name that appears only at its anchor is one a reviewer reads past
        issues.push({ path: '(key)', message: `expected a plain key (a name), found the alias "*${shownText(pair.key.source, 60)}" used as a key; write the key itself`, ...at(pair.key) });
      }
    },
  });
  // duplicate keys, with a set per mapping (after the first pass: every anchor is known): the
  // parser's own check compared every key with every other (100 000 keys took minutes)
  visit(doc, {
    Map(_, map) {
      const keys = new Set<string>();
      for (const pair of map.items) {
        const key = isAlias(pair.key) ? anchors.get(pair.key.source) : pair.key;
        if (!isScalar(key)) continue;
        const name = jsKey(key.value);
        if (keys.has(name)) issues.push({ path: '', message: `expected valid YAML, found a duplicate key "${shownText(name, 60)}" (each key once per mapping)`, ...at(pair.key as Node) });
        keys.add(name);
      }
    },
  });
  for (const w of doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED')) {
    const p = counter.linePos(w.pos[0]);
    const tag = /Unresolved tag: (\S+)/.exec(w.message)?.[1]?.replace(/^tag:yaml\.org,2002:/, '!!') ?? 'an unknown tag';
    issues.push({ path: '(tag)', message: `expected only the standard YAML tags (!!str, !!int, !!bool, …), found "${tag}"`, line: p.line, column: p.col });
  }
  return issues;
}

/** The property name a scalar key becomes in the parsed data (as the yaml package makes it: `~` and `""` are both ""). */
function jsKey(value: unknown): string {
  return value === null ? '' : String(value);
}

export function reservedKeyMessage(key: string): string {
  return `expected a name other than "${key}" (it is reserved in JavaScript objects)`;
}

/** Own keys named like a prototype member, anywhere in plain data (JSON.parse keeps `__proto__` as one). */
export function reservedKeys(value: unknown, at: readonly PropertyKey[], seen = new Set<unknown>()): ConfigIssue[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  if (Array.isArray(value)) return value.flatMap((v, i) => reservedKeys(v, [...at, i], seen));
  return Object.keys(value).flatMap((key) => [
    ...(FORBIDDEN_KEYS.has(key) ? [{ path: formatPath([...at, key]), message: reservedKeyMessage(key) }] : []),
    ...reservedKeys((value as Record<string, unknown>)[key], [...at, key], seen),
  ]);
}
