import { Token } from 'cdktf';
import { Construct } from 'constructs';
import { cidrContains, parseCidr, parseIpv4 } from '../config/cidr';
import { describeFound } from '../config/errors';

/**
 * Checks of a construct's props, in the environment loader's style (`field: expected …, found …`).
 * Values that are unresolved tokens (known only at apply time) are skipped: only what synthesis can
 * see is checked. All problems of one construct are reported together.
 */
export class PropChecks {
  private readonly problems: string[] = [];

  constructor(
    private readonly construct: string,
    private readonly scope: Construct,
  ) {}

  /** A value that must be given (JavaScript callers can omit typed-required props). */
  public required(field: string, value: unknown): this {
    if (value === undefined || value === null || value === '') this.fail(field, 'a value', value);
    return this;
  }

  /** Each of these props must be given. */
  public present<T extends object>(props: T, ...fields: (keyof T & string)[]): this {
    for (const field of fields) this.required(field, props[field]);
    return this;
  }

  /** An IPv4 CIDR with a prefix length from 0 to 32. */
  public cidr(field: string, value: string | undefined): this {
    if (known(value) && !parseCidr(value)) this.fail(field, 'an IPv4 CIDR such as 10.0.0.0/24', value);
    return this;
  }

  /** An IPv4 address inside `cidr` (when both are known and valid). */
  public addressIn(field: string, value: string | undefined, cidr: string | undefined): this {
    if (!known(value)) return this;
    const address = parseIpv4(value);
    const range = known(cidr) ? parseCidr(cidr) : undefined;
    if (address === undefined) this.fail(field, 'an IPv4 address', value);
    else if (range && !cidrContains(range, address)) this.fail(field, `an address inside ${cidr}`, value);
    return this;
  }

  /** A whole number from `min` to `max`. */
  public integer(field: string, value: number | undefined, min: number, max: number): this {
    if (value === undefined || Token.isUnresolved(value)) return this;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) this.fail(field, `a whole number from ${min} to ${max}`, value);
    return this;
  }

  /** A TCP/UDP port. */
  public port(field: string, value: number | undefined): this {
    return this.integer(field, value, 1, 65535);
  }

  /** An http(s) URL. */
  public url(field: string, value: string | undefined): this {
    if (known(value) && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(value)) this.fail(field, 'an http(s) URL such as https://203.0.113.10:6443', value);
    return this;
  }

  /** Throws one error listing every problem found. */
  public done(): void {
    if (this.problems.length === 0) return;
    const where = `${this.construct} at ${this.scope.node.path}`;
    throw new Error(`Invalid props of ${where} (${this.problems.length} ${this.problems.length === 1 ? 'problem' : 'problems'}):\n${this.problems.map((p) => `  ${p}`).join('\n')}`);
  }

  private fail(field: string, expected: string, found: unknown): void {
    this.problems.push(`${field}: expected ${expected}, found ${describeFound(found)}`);
  }
}

/** A string synthesis can read (not an apply-time token). */
function known(value: string | undefined): value is string {
  return typeof value === 'string' && !Token.isUnresolved(value);
}
