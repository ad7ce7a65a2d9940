/**
 * Values resolved only when Terraform applies: unresolved cdktf tokens (`${TfToken[TOKEN.42]}`) and
 * raw Terraform interpolations (`${aws_x.y.id}`). Recognised without importing cdktf, so the
 * bootstrap renderers stay pure and testable.
 */

/** Whether `value` contains a cdktf token or a Terraform interpolation. */
export function containsToken(value: string): boolean {
  return value.includes('${');
}

/**
 * Terraform treats `${…}` and `%{…}` in any string as template syntax. The rendered user data may
 * carry such syntax only inside the values that are meant to be resolved by Terraform
 * (`allowedValues`); anything else would be evaluated by Terraform by accident. Throws, naming an
 * excerpt.
 */
export function assertNoTemplateSyntax(text: string, what: string, allowedValues: readonly string[] = []): void {
  let rest = text.replace(/\$\{TfToken\[TOKEN\.\d+\]\}/g, '');
  for (const v of [...allowedValues].filter((a) => containsToken(a)).sort((a, b) => b.length - a.length)) {
    rest = rest.split(v).join('');
  }
  const m = /[$%]\{/.exec(rest);
  if (m) {
    const excerpt = rest.slice(Math.max(0, m.index - 20), m.index + 20).replace(/\n/g, '\\n');
    throw new Error(`${what}: contains "${m[0]}" (Terraform template syntax) near "${excerpt}"; only token-valued inputs may carry it`);
  }
}

/** Throws when a value that is baked into a script or a file literally is a token. */
export function assertLiteral(value: string, field: string): void {
  if (containsToken(value) || value.includes('%{')) {
    throw new Error(`${field}: expected a literal value known at synth time, found an unresolved token or Terraform expression`);
  }
}
