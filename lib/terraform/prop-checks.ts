import { isIPv6 } from 'net';
import { Token } from 'cdktf';
import { Construct } from 'constructs';
import { cidrContains, parseCidr, parseIpv4 } from '../config/cidr';
import { LOADED_ENVIRONMENT, notAnEnvironment } from '../config/environment-shape';
import { describeFound } from '../config/errors';
import { EnvironmentConfig } from '../config/resolve';

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

  /** The props object itself (JavaScript callers can pass none): refused at once, nothing else can be read. */
  public props(value: unknown): this {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.refuse('props', `the ${this.construct}'s props (an object)`, describeFound(value));
    return this;
  }

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

  /** A loaded environment; false when it is none (the caller skips the checks that read it). */
  public environment(field: string, value: unknown): value is EnvironmentConfig {
    const other = notAnEnvironment(value);
    if (other !== undefined) this.problems.push(`${field}: expected ${LOADED_ENVIRONMENT}, found ${other}`);
    return other === undefined;
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

  /** A CIDR of the rule's address family (an IPv6 rule with an IPv4 prefix matches nothing Neutron would send it). */
  public cidrOf(field: string, value: string | undefined, family: 'IPv4' | 'IPv6'): this {
    if (family === 'IPv4') return this.cidr(field, value);
    if (known(value) && !isIpv6Cidr(value)) this.fail(field, 'an IPv6 CIDR such as 2001:db8::/64 (the rule is IPv6)', value);
    return this;
  }

  /** Each entry an IPv4 address. */
  public addresses(field: string, values: readonly string[] | undefined): this {
    (values ?? []).forEach((v, i) => this.addressIn(`${field}[${i}]`, v, undefined));
    return this;
  }

  /** Two IPv4 addresses in order: `first` at most `last` (when both are known and valid). */
  public ordered(firstField: string, first: string | undefined, lastField: string, last: string | undefined): this {
    const a = known(first) ? parseIpv4(first) : undefined;
    const b = known(last) ? parseIpv4(last) : undefined;
    if (a !== undefined && b !== undefined && a > b) this.fail(firstField, `an address at most ${lastField} (${last})`, first);
    return this;
  }

  /** An RFC 3339 timestamp such as 2027-01-31T00:00:00Z. */
  public timestamp(field: string, value: string | undefined): this {
    if (known(value) && !(RFC3339.test(value) && !Number.isNaN(Date.parse(value)))) this.fail(field, 'an RFC 3339 timestamp such as 2027-01-31T00:00:00Z', value);
    return this;
  }

  /** A value other than `refused`, which would do harm; `why` says what. */
  public not(field: string, value: string | undefined, refused: string, why: string): this {
    if (value === refused) this.fail(field, `anything but "${refused}" (${why})`, value);
    return this;
  }

  /** A problem a rule of the construct found itself, in the same form (`found` already worded). */
  public check(ok: boolean, field: string, expected: string, found: string): this {
    if (!ok) this.problems.push(`${field}: expected ${expected}, found ${found}`);
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
    if (this.problems.length > 0) throw this.error();
  }

  /** Throws at once, with the problems found so far and this one (nothing else can be checked without it). */
  public refuse(field: string, expected: string, found: string): never {
    this.check(false, field, expected, found);
    throw this.error();
  }

  private error(): Error {
    const where = `${this.construct} at ${this.scope.node.path}`;
    return new Error(`Invalid props of ${where} (${this.problems.length} ${this.problems.length === 1 ? 'problem' : 'problems'}):\n${this.problems.map((p) => `  ${p}`).join('\n')}`);
  }

  private fail(field: string, expected: string, found: unknown): void {
    this.problems.push(`${field}: expected ${expected}, found ${describeFound(found)}`);
  }
}

/** A string synthesis can read (not an apply-time token). */
function known(value: string | undefined): value is string {
  return typeof value === 'string' && !Token.isUnresolved(value);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isIpv6Cidr(value: string): boolean {
  const m = /^([0-9A-Fa-f:.]+)\/(\d{1,3})$/.exec(value);
  return !!m && isIPv6(m[1]) && Number(m[2]) <= 128;
}
