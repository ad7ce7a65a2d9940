/**
 * CA files an environment names (the OpenStack API's CA, registry mirrors' CAs). Their content is
 * shipped to nodes, Secrets and the synthesized JSON, so only certificates are taken from them:
 * a private key in the file is refused (it would be shipped), and what surrounds the certificate
 * blocks (comments, `${…}`) is dropped. Only a bounded regular file is read: a directory, a device
 * such as /dev/zero or a FIFO gets a message instead of EISDIR, an allocation failure or a hang.
 */
import * as fs from 'fs';
import { certificateBlocks, PRIVATE_KEY_HEADER } from './pem';

/** Far above any CA bundle (a system bundle of ~150 CAs is about 220 KiB). */
export const MAX_CA_FILE_BYTES = 1024 * 1024;


export type CaFileResult = { readonly pem: string } | { readonly problem: string };

/** The certificates of the PEM file at `abs` (absolute), one normalized block each, or why not. */
export function readCaCertificates(abs: string): CaFileResult {
  let fd: number;
  try {
    // stat first: a FIFO or a device is never opened
    const stat = fs.statSync(abs);
    if (!stat.isFile()) return { problem: `expected a regular PEM file, found ${kindOf(stat)} at ${abs}` };
    // O_NONBLOCK: should the path turn into a FIFO after the stat, the open returns at once (fstat below refuses it)
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? `expected a readable PEM file, found no file at ${abs}` : `expected a readable PEM file, found ${abs} unreadable (${code ?? (e as Error).message})` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { problem: `expected a regular PEM file, found ${kindOf(stat)} at ${abs}` };
    if (stat.size > MAX_CA_FILE_BYTES) return { problem: `expected a PEM file of at most ${MAX_CA_FILE_BYTES} bytes, found ${stat.size} bytes at ${abs}` };
    const buffer = Buffer.alloc(stat.size);
    const read = stat.size === 0 ? 0 : fs.readSync(fd, buffer, 0, stat.size, 0);
    return certificatesOf(buffer.subarray(0, read).toString('utf8'), abs);
  } finally {
    fs.closeSync(fd);
  }
}

function certificatesOf(text: string, abs: string): CaFileResult {
  const key = PRIVATE_KEY_HEADER.exec(text);
  if (key) return { problem: `expected certificates only, found a private key ("${key[0]}") in ${abs}: keep the CA's key out of this file (it would be copied to every node and into the Terraform state)` };
  const { blocks } = certificateBlocks(text);
  if (blocks.length === 0) return { problem: `expected a PEM certificate, found a file without a "BEGIN CERTIFICATE" block (${abs})` };
  return { pem: blocks.join('') };
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'no regular file';
}
