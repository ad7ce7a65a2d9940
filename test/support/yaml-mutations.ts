/** Line-level mutations of YAML text for the fuzz tiers: hostile values and keys, broken structure. */
export const VALUES = [
  '', '""', '0', '-1', '1e309', '99999999999999999999', 'null', '~', 'true', 'no', '[]', '{}', '[a, b]', '{ a: 1 }',
  '"\\n"', '"a\\u0000b"', '"\\t"', `"${'x'.repeat(5000)}"`, '"ü ünïcödé"', '*nowhere', '&a x', '!!binary aGk=', '!!str 1',
  '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8', 'v1.33.05', 'v1.99.x', 'https://x\\ny', '"http://p:3128\\nExec=/bin/x"',
  '__proto__', 'constructor', '"${jndi}"', "'$(id)'", '`id`', '0x10', '.inf', '2026-01-01', '"- a"',
  // control characters the loader refuses in every field: DEL, C1, separators, bidirectional, noncharacters
  '"a\\x7fb"', '"\\x85"', '"\\x9b[2J"', '"a\\u2028b"', '"\\u202eab"', '"\\uFEFFx"', '"x\\uFFFE"', '"\\e]0;t\\a"',
];
export const KEYS = ['__proto__', 'constructor', 'prefix', 'clusters', 'x', 'count', 'flavor', 'httpProxy', 'nodeCidr', 'addons', '"a b"', '"k\\x7f"', '"a\\nb"'];

export type Mutation = (lines: string[], r: () => number) => string[];
export const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const at = (r: () => number, lines: string[]) => Math.floor(r() * lines.length);

export const MUTATIONS: Record<string, Mutation> = {
  deleteLine: (l, r) => l.filter((_, i) => i !== at(r, l)),
  duplicateLine: (l, r) => {
    const i = at(r, l);
    return [...l.slice(0, i + 1), l[i], ...l.slice(i + 1)];
  },
  swapLines: (l, r) => {
    const a = at(r, l);
    const b = at(r, l);
    const out = [...l];
    [out[a], out[b]] = [out[b], out[a]];
    return out;
  },
  replaceValue: (l, r) => {
    const candidates = l.map((line, i) => ({ line, i })).filter((x) => /:\s*\S/.test(x.line) && !x.line.trim().startsWith('#'));
    if (candidates.length === 0) return l;
    const c = pick(r, candidates);
    const out = [...l];
    out[c.i] = c.line.replace(/:\s*.*$/, `: ${pick(r, VALUES)}`);
    return out;
  },
  replaceKey: (l, r) => {
    const i = at(r, l);
    const out = [...l];
    out[i] = l[i].replace(/^(\s*)[A-Za-z_][\w-]*:/, `$1${pick(r, KEYS)}:`);
    return out;
  },
  insertEntry: (l, r) => {
    const i = at(r, l);
    const indent = /^(\s*)/.exec(l[i])![1];
    return [...l.slice(0, i), `${indent}${pick(r, KEYS)}: ${pick(r, VALUES)}`, ...l.slice(i)];
  },
  reindent: (l, r) => {
    const i = at(r, l);
    const out = [...l];
    out[i] = r() < 0.5 ? ` ${l[i]}` : l[i].replace(/^ /, '');
    return out;
  },
  truncate: (l, r) => l.slice(0, at(r, l)),
  /** An anchor on one value and, further down, the same anchor again or an alias to it (as a value or as a key). */
  anchorAlias: (l, r) => {
    const values = l.map((line, i) => ({ line, i })).filter((x) => /^\s*[\w-]+:\s+[^\s#&*|>]/.test(x.line));
    if (values.length < 2) return l;
    const [a, b] = [pick(r, values), pick(r, values)].sort((x, y) => x.i - y.i);
    const out = [...l];
    out[a.i] = a.line.replace(/:\s+/, ': &m ');
    const use = pick(r, ['again', 'value', 'key']);
    if (use === 'again') out[b.i] = out[b.i].replace(/:\s+(?!&)/, ': &m ');
    else if (use === 'value') out[b.i] = out[b.i].replace(/:\s+.*$/, ': *m');
    else out[b.i] = out[b.i].replace(/^(\s*)[\w-]+:/, '$1? *m\n$1:');
    return out;
  },
};
