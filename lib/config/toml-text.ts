/**
 * Values written into TOML (containerd's `hosts.toml`). A basic string (`"…"`) ends at `"`, turns
 * `\` into an escape and may not hold control characters other than tab: those are escaped, so the
 * file parses and each value reads back exactly. Lone UTF-16 surrogates have no TOML form and are
 * refused.
 */

/** `value` as a TOML basic string, quotes included. */
export function tomlBasicString(value: string): string {
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value)) {
    throw new Error(`TOML: expected text without lone UTF-16 surrogates, found one in ${JSON.stringify(value.slice(0, 60))}`);
  }
  const escaped = value.replace(/["\\\u0000-\u001f\u007f]/g, (c) => {
    switch (c) {
      case '"': return '\\"';
      case '\\': return '\\\\';
      case '\n': return '\\n';
      case '\t': return '\\t';
      case '\r': return '\\r';
      default: return `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  });
  return `"${escaped}"`;
}
