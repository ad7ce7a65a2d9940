/**
 * PEM text: its certificate blocks, normalized (LF line ends, one trailing newline each), and the
 * header of a private key, which must never be shipped with them.
 */
const CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END CERTIFICATE-----/g;

/** `-----BEGIN … PRIVATE KEY-----` of any kind (RSA, EC, ENCRYPTED, PKCS#8). */
export const PRIVATE_KEY_HEADER = /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----/;

/** The certificate blocks of `text`, and the text around them (trimmed). */
export function certificateBlocks(text: string): { readonly blocks: string[]; readonly rest: string } {
  const blocks = [...text.matchAll(CERTIFICATE)].map((m) => `-----BEGIN CERTIFICATE-----\n${m[1].replace(/\r/g, '')}-----END CERTIFICATE-----\n`);
  return { blocks, rest: text.replace(CERTIFICATE, '').trim() };
}
