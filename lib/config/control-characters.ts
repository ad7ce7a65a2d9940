/**
 * Characters no field of an environment needs and that break or forge what they land in: C0 and
 * C1 controls and DEL (cloud-init's YAML parser refuses them; a newline starts a line of its own in
 * a drop-in or a TOML file; NEL, U+2028 and U+2029 are line breaks to YAML 1.1, which cloud-init
 * reads), bidirectional overrides and isolates (text that reads otherwise than it is, in review and
 * in messages), the byte order mark, noncharacters (U+FFFE, U+FFFF, …) and lone surrogates.
 * One check over the whole environment refuses them, in keys and values alike; messages show
 * them escaped.
 */
/** Whether the code point is one of the refused characters. */
export function isControlCharacter(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x061c || // Arabic letter mark (bidirectional)
    cp === 0x200e || cp === 0x200f || // left-to-right / right-to-left marks
    cp === 0x2028 || cp === 0x2029 || // line and paragraph separators
    (cp >= 0x202a && cp <= 0x202e) || // bidirectional embeddings and overrides
    (cp >= 0x2066 && cp <= 0x2069) || // bidirectional isolates
    cp === 0xfeff || // byte order mark
    (cp >= 0xfdd0 && cp <= 0xfdef) || // noncharacters
    (cp & 0xfffe) === 0xfffe || // U+FFFE, U+FFFF and their copies in every plane
    (cp >= 0xd800 && cp <= 0xdfff) // a surrogate on its own (a pair is one code point above U+FFFF)
  );
}

/** Index (in UTF-16 units) of the first refused character of `text`, or -1. */
export function controlCharacterIndex(text: string): number {
  let i = 0;
  for (const ch of text) {
    if (isControlCharacter(ch.codePointAt(0)!)) return i;
    i += ch.length;
  }
  return -1;
}

const NAMED: Readonly<Record<number, string>> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r' };

/** `text` with every refused character written as an escape (`\n`, `\u007f`, `\u{1fffe}`), safe on one line of a terminal. */
export function escapeControlCharacters(text: string): string {
  if (controlCharacterIndex(text) < 0) return text;
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (!isControlCharacter(cp)) out += ch;
    else out += NAMED[cp] ?? (cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`);
  }
  return out;
}

/** Text from the input as a message shows it: control characters escaped, cut after `max` characters with its length. */
export function shownText(text: string, max = 200): string {
  const cut = text.length > max ? `${text.slice(0, max - 3)}... (${text.length} characters)` : text;
  return escapeControlCharacters(cut);
}

/** A refused character found in a key or a string value, with where it is. */
export interface ControlCharacterFinding {
  readonly path: readonly PropertyKey[];
  /** True when the key itself (the last step of `path`) holds the character. */
  readonly inKey: boolean;
  readonly text: string;
  readonly index: number;
}

/** Every key and string of plain data (a parsed environment) holding a refused character; iterative, each object once. */
export function controlCharacterFindings(data: unknown): ControlCharacterFinding[] {
  const findings: ControlCharacterFinding[] = [];
  const seen = new Set<unknown>();
  const stack: [unknown, readonly PropertyKey[]][] = [[data, []]];
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (typeof value === 'string') {
      const index = controlCharacterIndex(value);
      if (index >= 0) findings.push({ path: at, inKey: false, text: value, index });
      continue;
    }
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    // children pushed last-first: they are taken in the order of the file
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...at, i]]);
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      const index = controlCharacterIndex(key);
      if (index >= 0) findings.push({ path: [...at, key], inKey: true, text: key, index });
    }
    for (let i = keys.length - 1; i >= 0; i--) stack.push([(value as Record<string, unknown>)[keys[i]], [...at, keys[i]]]);
  }
  return findings;
}

/** The message of a finding: which character, where in the text, and the text escaped. */
export function controlCharacterMessage(f: ControlCharacterFinding): string {
  const cp = f.text.codePointAt(f.index)!;
  const what = f.inKey ? 'a key' : 'text';
  return `expected ${what} without control characters (C0/C1, DEL, line separators, bidirectional controls, noncharacters), found U+${cp.toString(16).toUpperCase().padStart(4, '0')} at character ${f.index + 1} of "${shownText(f.text, 80)}"`;
}
