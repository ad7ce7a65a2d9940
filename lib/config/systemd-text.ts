/**
 * Values written into systemd unit files and drop-ins. systemd expands specifiers in most settings
 * (`%n` is the unit's name, `%h` a home directory): a value holding `%` changes meaning, or makes
 * systemd drop the whole line when the specifier is unknown (`%7E` in a URL: "Failed to resolve
 * specifiers … ignoring"), so every `%` is written `%%`. A quoted word (`Environment="K=V"`) ends at
 * `"` and unescapes `\`, and a line ends at a line break: values with those, or with other control
 * characters, are refused instead.
 */

/** `value` with systemd's specifier character escaped (`%` → `%%`). */
export function systemdSpecifierEscape(value: string): string {
  return value.replace(/%/g, '%%');
}

/** Characters a value inside a quoted systemd word may not hold: quotes, backslashes, C0, DEL, C1, line and paragraph separators. */
const UNQUOTABLE = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * One `Environment=` line setting each variable as its own double-quoted word, specifiers escaped:
 * `Environment="HTTP_PROXY=http://p:3128/%%7E" "NO_PROXY=a,b"`. Throws naming the variable when a
 * value cannot be written as one quoted word.
 */
export function systemdEnvironmentLine(variables: readonly (readonly [string, string])[]): string {
  const words = variables.map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`systemd Environment=: expected a variable name, found ${JSON.stringify(name)}`);
    const bad = UNQUOTABLE.exec(value);
    if (bad) {
      throw new Error(`systemd Environment=: expected ${name} without quotes, backslashes or control characters, found ${JSON.stringify(bad[0])} in ${JSON.stringify(value.slice(0, 60))}${value.length > 60 ? ` (${value.length} characters)` : ''}`);
    }
    return `"${name}=${systemdSpecifierEscape(value)}"`;
  });
  return `Environment=${words.join(' ')}`;
}
