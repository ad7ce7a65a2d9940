/**
 * Unresolved cdktf tokens inside strings look like `${TfToken[TOKEN.42]}`. This module recognises
 * them without importing cdktf, so the bootstrap renderers stay pure and testable.
 */

const TOKEN_MARKER = /\$\{TfToken\[/;

/** Whether `value` contains an unresolved cdktf token. */
export function containsToken(value: string): boolean {
  return TOKEN_MARKER.test(value);
}

/**
 * Terraform treats `${…}` and `%{…}` in any string as template syntax. The rendered user data may
 * contain cdktf tokens (which become such references on purpose) but nothing else of that shape,
 * or Terraform would try to evaluate it. Throws, naming the first offending excerpt.
 */
export function assertNoTemplateSyntax(text: string, what: string): void {
  const withoutTokens = text.replace(/\$\{TfToken\[TOKEN\.\d+\]\}/g, '');
  const m = /[$%]\{/.exec(withoutTokens);
  if (m) {
    const excerpt = withoutTokens.slice(Math.max(0, m.index - 20), m.index + 20).replace(/\n/g, '\\n');
    throw new Error(`${what}: contains "${m[0]}" (Terraform template syntax) near "${excerpt}"; remove it or pass the value through a variable`);
  }
}

/** Throws when a value that is baked into a script or a file literally is a token. */
export function assertLiteral(value: string, field: string): void {
  if (containsToken(value)) {
    throw new Error(`${field}: expected a literal value known at synth time, found an unresolved token`);
  }
}
