/**
 * Reads a file an environment or the operator names without trusting what is at the path: only a
 * regular file of bounded size is read. A directory, a device such as /dev/zero, a FIFO or a socket
 * gets a message instead of EISDIR, an allocation failure (`std::bad_alloc`) or a hang, and a
 * file far larger than any real one is refused before it is read or parsed.
 */
import * as fs from 'fs';
import { escapeControlCharacters } from './control-characters';

/**
 * Environment files, clouds.yaml / secure.yaml, tfvars and containerd hosts files: far above any
 * real one (a feature-rich environment file is a few KiB), far below what makes parsing slow.
 */
export const MAX_SETTINGS_FILE_BYTES = 1024 * 1024;

/** Kubeconfigs: certificates are embedded, and a kubeconfig may hold hundreds of contexts. */
export const MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024;

export type BoundedRead = { readonly bytes: Buffer } | { readonly problem: string; readonly reason: 'missing' | 'special' | 'unreadable' | 'size' };

/**
 * The bytes of the regular file at `abs`, or why not; `what` names the file in the message
 * ("PEM file" gives "expected a regular PEM file, found a directory at …").
 */
export function readBoundedFile(abs: string, what: string, maxBytes: number): BoundedRead {
  const shown = escapeControlCharacters(abs);
  let fd: number;
  try {
    // stat first: a FIFO or a device is never opened
    const stat = fs.statSync(abs);
    if (!stat.isFile()) return { problem: `expected a regular ${what}, found ${kindOf(stat)} at ${shown}`, reason: 'special' };
    // O_NONBLOCK: should the path turn into a FIFO after the stat, the open returns at once (fstat below refuses it)
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { problem: `expected a readable ${what}, found no file at ${shown}`, reason: 'missing' };
    return { problem: `expected a readable ${what}, found ${shown} unreadable (${code ?? (e as Error).message})`, reason: 'unreadable' };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { problem: `expected a regular ${what}, found ${kindOf(stat)} at ${shown}`, reason: 'special' };
    if (stat.size > maxBytes) return { problem: `expected ${article(what)} ${what} of at most ${maxBytes} bytes, found ${stat.size} bytes at ${shown}`, reason: 'size' };
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = fs.readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break; // the file shrank since the stat
      read += n;
    }
    return { bytes: buffer.subarray(0, read) };
  } catch (e) {
    return { problem: `expected a readable ${what}, found ${shown} unreadable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, reason: 'unreadable' };
  } finally {
    fs.closeSync(fd);
  }
}

/** Why {@link readBoundedFile} would refuse the path, from its metadata alone (nothing is opened). */
export function boundedFileProblem(abs: string, what: string, maxBytes: number): string | undefined {
  const shown = escapeControlCharacters(abs);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `expected a readable ${what}, found no file at ${shown}`;
    return `expected a readable ${what}, found ${shown} unreadable (${code ?? (e as Error).message})`;
  }
  if (!stat.isFile()) return `expected a regular ${what}, found ${kindOf(stat)} at ${shown}`;
  if (stat.size > maxBytes) return `expected ${article(what)} ${what} of at most ${maxBytes} bytes, found ${stat.size} bytes at ${shown}`;
  return undefined;
}

/** The problem with reading `text` as a settings file of at most `maxBytes`, measured before it is parsed. */
export function textSizeProblem(text: string, what: string, maxBytes: number): string | undefined {
  // a string holds at least as many UTF-8 bytes as UTF-16 units / 1 and at most 3 per unit: skip counting when it cannot matter
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > maxBytes ? `expected ${article(what)} ${what} of at most ${maxBytes} bytes, found ${bytes} bytes` : undefined;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'no regular file';
}
