/**
 * The management VM's user data against Nova's limit (see config/user-data-limits.ts), measured on
 * the rendered document with every value Terraform fills in at apply time taken at its largest.
 */
import { MANAGEMENT_TOKEN_BOUNDS, NOVA_USER_DATA_BASE64_LIMIT, NOVA_USER_DATA_LIMIT_BYTES, formatBytes } from '../config/user-data-limits';
import type { ManagementUserDataProps } from './management-user-data-props';
import { containsToken } from './tokens';

/** Bytes of `text` once Terraform has substituted the token-valued props (each at its upper bound). */
export function managementUserDataBytes(text: string, props: ManagementUserDataProps): number {
  const bounded: [string, number][] = [
    [props.caCertificatePemBase64, MANAGEMENT_TOKEN_BOUNDS.caCertificateBase64],
    [props.caPrivateKeyPemBase64, MANAGEMENT_TOKEN_BOUNDS.caPrivateKeyBase64],
    [props.apiServerAddress, MANAGEMENT_TOKEN_BOUNDS.address],
    ...(props.extraCertSans ?? []).map((s): [string, number] => [s, MANAGEMENT_TOKEN_BOUNDS.address]),
  ];
  let bytes = Buffer.byteLength(text, 'utf8');
  for (const [value, bound] of new Map(bounded.filter(([v]) => containsToken(v)))) {
    const occurrences = text.split(value).length - 1;
    bytes += occurrences * (bound - Buffer.byteLength(value, 'utf8'));
  }
  return bytes;
}

/** Throws when the user data would not fit, naming the measured size, the limit and the largest parts. */
export function checkManagementUserDataSize(text: string, props: ManagementUserDataProps, parts: readonly { name: string; bytes: number }[]): void {
  const bytes = managementUserDataBytes(text, props);
  if (bytes <= NOVA_USER_DATA_LIMIT_BYTES) return;
  const largest = [...parts].sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((p) => `${p.name} ${formatBytes(p.bytes)}`);
  throw new Error(
    `management VM user data: expected at most ${formatBytes(NOVA_USER_DATA_LIMIT_BYTES)} (Nova takes at most ${NOVA_USER_DATA_BASE64_LIMIT} characters of base64), found ${formatBytes(bytes)}; largest parts: ${largest.join(', ')}: shrink trustedCaCertificatesPem, the registry mirrors' CAs or noProxy`,
  );
}
