/**
 * The CA certificates the management VM trusts from its first boot (cloud-init's `ca_certs`
 * module, which runs before the bootstrap scripts download anything). Only certificate blocks get
 * through: the text lands in the VM's trust store and in the user data, which Nova shows to anyone
 * who may read the server.
 */
import { certificateBlocks } from '../config/pem';
import { assertLiteral } from './tokens';

/** The certificate blocks of `pem`, each ending in a newline; throws naming `field` otherwise. */
export function trustedCaBlocks(pem: string, field: string): string[] {
  assertLiteral(pem, field);
  const { blocks, rest } = certificateBlocks(pem);
  if (blocks.length === 0) throw new Error(`${field}: expected PEM certificates ("-----BEGIN CERTIFICATE-----" blocks), found none`);
  // any line of a key (a pasted key may lack its BEGIN line): refused without echoing it
  if (/PRIVATE KEY-----/.test(rest)) throw new Error(`${field}: expected certificates only, found a private key block (it would be shipped in the user data): keep the CA's key out of it`);
  if (rest !== '') {
    const shown = rest.length > 40 ? `${rest.slice(0, 40)}…` : rest;
    throw new Error(`${field}: expected only PEM certificate blocks, found other text: "${shown.replace(/\s+/g, ' ')}"`);
  }
  return blocks;
}
