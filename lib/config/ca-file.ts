/**
 * CA files an environment names (the OpenStack API's CA, registry mirrors' CAs). Their content is
 * shipped to nodes, Secrets and the synthesized JSON, so only certificates are taken from them:
 * a private key in the file is refused (it would be shipped), and what surrounds the certificate
 * blocks (comments, `${…}`) is dropped. Only a bounded regular file is read (bounded-file.ts).
 */
import { escapeControlCharacters } from './control-characters';
import { readBoundedFile } from './bounded-file';
import { certificateBlocks, PRIVATE_KEY_HEADER } from './pem';

/** Far above any CA bundle (a system bundle of ~150 CAs is about 220 KiB). */
export const MAX_CA_FILE_BYTES = 1024 * 1024;

export type CaFileResult = { readonly pem: string } | { readonly problem: string };

/** The certificates of the PEM file at `abs` (absolute), one normalized block each, or why not. */
export function readCaCertificates(abs: string): CaFileResult {
  const read = readBoundedFile(abs, 'PEM file', MAX_CA_FILE_BYTES);
  if ('problem' in read) return { problem: read.problem };
  return certificatesOf(read.bytes.toString('utf8'), escapeControlCharacters(abs));
}

function certificatesOf(text: string, abs: string): CaFileResult {
  const key = PRIVATE_KEY_HEADER.exec(text);
  if (key) return { problem: `expected certificates only, found a private key ("${key[0]}") in ${abs}: keep the CA's key out of this file (it would be copied to every node and into the Terraform state)` };
  const { blocks } = certificateBlocks(text);
  if (blocks.length === 0) return { problem: `expected a PEM certificate, found a file without a "BEGIN CERTIFICATE" block (${abs})` };
  return { pem: blocks.join('') };
}
