import { Document, Scalar } from 'yaml';
import { containsToken } from './tokens';

/**
 * Serialises `value` as YAML without line folding (a folded line could split a token or a base64
 * string). Strings that carry tokens or Terraform expressions are single-quoted: the expression
 * text inside stays untouched (double quoting would escape its `"`), and what Terraform substitutes
 * (an IP address, base64 text, a URL) stays one scalar.
 */
export function toYamlText(value: unknown): string {
  return new Document(quoteTokens(value)).toString({ lineWidth: 0, minContentWidth: 0 });
}

/** A string emitted as a YAML literal block (`|`), e.g. the content of a file. */
export function literalBlock(text: string): Scalar<string> {
  const s = new Scalar(text);
  s.type = Scalar.BLOCK_LITERAL;
  return s;
}

/** A string emitted single-quoted (only `'` is escaped, as `''`). */
export function singleQuoted(text: string): Scalar<string> {
  const s = new Scalar(text);
  s.type = Scalar.QUOTE_SINGLE;
  return s;
}

function quoteTokens(value: unknown): unknown {
  if (typeof value === 'string') return containsToken(value) ? singleQuoted(value) : value;
  if (Array.isArray(value)) return value.map(quoteTokens);
  if (value instanceof Scalar) return value;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) out[k] = quoteTokens(v);
    }
    return out;
  }
  return value;
}
