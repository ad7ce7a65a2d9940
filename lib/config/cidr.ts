/** IPv4 address and CIDR arithmetic used by the environment checks. Pure, no dependencies. */

export interface Ipv4Cidr {
  /** Network address as an unsigned 32-bit integer. */
  readonly network: number;
  readonly prefixLength: number;
  /** The text the CIDR was parsed from. */
  readonly text: string;
}

/** Canonical octets only: a leading zero (010) reads as octal to some tools and as decimal to others. */
const OCTET = '(0|[1-9]\\d{0,2})';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/**
 * Parses a dotted-quad IPv4 address; returns undefined when it is not one. Nothing is trimmed: the
 * text is what reaches Terraform, so surrounding whitespace or newlines are refused, not ignored.
 */
export function parseIpv4(text: string): number | undefined {
  const m = IPV4.exec(text);
  if (!m) return undefined;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return undefined;
  return ((octets[0] << 24) >>> 0) + (octets[1] << 16) + (octets[2] << 8) + octets[3];
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
}

/** Parses `a.b.c.d/n`. Host bits must be zero so the operator's intent is unambiguous. */
export function parseCidr(text: string): Ipv4Cidr | undefined {
  const [addr, len, ...rest] = text.split('/');
  if (rest.length > 0 || len === undefined || !/^(0|[1-9]\d?)$/.test(len)) return undefined;
  const prefixLength = Number(len);
  const ip = parseIpv4(addr);
  if (ip === undefined || prefixLength > 32) return undefined;
  const network = (ip & maskOf(prefixLength)) >>> 0;
  if (network !== ip) return undefined;
  return { network, prefixLength, text };
}

function maskOf(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

export function lastAddress(cidr: Ipv4Cidr): number {
  return (cidr.network | (~maskOf(cidr.prefixLength) >>> 0)) >>> 0;
}

export function cidrsOverlap(a: Ipv4Cidr, b: Ipv4Cidr): boolean {
  return a.network <= lastAddress(b) && b.network <= lastAddress(a);
}

export function cidrContains(cidr: Ipv4Cidr, address: number): boolean {
  return address >= cidr.network && address <= lastAddress(cidr);
}

/** The default allocation pool starts at this host of the management subnet (the old tool's .11). */
export const DEFAULT_POOL_START_HOST = 11;

/** The n-th host address of a CIDR (1 = first usable), e.g. the gateway. */
export function hostAddress(cidr: Ipv4Cidr, n: number): string {
  return formatIpv4((cidr.network + n) >>> 0);
}
