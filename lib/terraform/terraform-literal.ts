import { Token } from 'cdktf';

/**
 * Terraform reads `${` and `%{` in every JSON string as template syntax, so literal text (shell
 * scripts in CAPI node files, chart values) must double them. Strings that carry cdktf tokens are
 * Terraform expressions on purpose and are left alone.
 */
export function terraformLiteral<T>(value: T): T {
  if (typeof value === 'string') {
    if (Token.isUnresolved(value)) return value;
    return value.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{') as unknown as T;
  }
  if (Array.isArray(value)) return value.map((v) => terraformLiteral(v)) as unknown as T;
  if (value !== null && typeof value === 'object' && !Token.isUnresolved(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terraformLiteral(k), terraformLiteral(v)])) as T;
  }
  return value;
}
