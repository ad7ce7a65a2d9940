/**
 * The key of a backup: scrypt of the operator's passphrase. The parameters sit in the file's clear
 * header, and a key must be derived before the file can be authenticated, so they are bounded
 * before anything is derived: a changed file could otherwise ask for hours of CPU or gigabytes.
 */
import { scryptSync } from 'crypto';
import { BackupError, describeBackupValue } from './backup-error';

export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** What backups are written with: ~100 ms and 32 MiB per derivation on one core. */
export const SCRYPT_WRITTEN: ScryptParameters = { N: 1 << 15, r: 8, p: 1 };

/**
 * What a backup may ask for: at most 8 times the work and 4 times the memory of what is written
 * (N·r·p ≤ 2^21, 128·N·r bytes ≤ 128 MiB), so a later, costlier choice still opens here.
 */
export const SCRYPT_LIMITS = { minN: 1 << 14, maxN: 1 << 17, maxR: 16, maxP: 4, maxWork: 1 << 21, maxMemoryBytes: 128 * 1024 * 1024 } as const;

const KEY_BYTES = 32;

/** Refuses parameters outside the limits, naming the parameter, what is accepted and what was found. */
export function checkScryptParameters(kdf: Readonly<Record<string, unknown>>, what: string): ScryptParameters {
  const L = SCRYPT_LIMITS;
  const refuse = (field: string, expected: string) => {
    throw new BackupError(`${what}: header field kdf.${field}: expected ${expected}, found ${describeBackupValue(kdf[field])} (refused before a key is derived: a changed header could otherwise ask for hours of CPU)`);
  };
  const { N, r, p } = kdf;
  if (!isWhole(N) || N < L.minN || N > L.maxN || (N & (N - 1)) !== 0) refuse('N', `a power of two from ${L.minN} to ${L.maxN}`);
  if (!isWhole(r) || r < 1 || r > L.maxR) refuse('r', `a whole number from 1 to ${L.maxR}`);
  if (!isWhole(p) || p < 1 || p > L.maxP) refuse('p', `a whole number from 1 to ${L.maxP}`);
  const params = { N: N as number, r: r as number, p: p as number };
  if (128 * params.N * params.r > L.maxMemoryBytes) refuse('r', `at most ${L.maxMemoryBytes / (128 * params.N)} with N ${params.N} (128·N·r bytes of memory, at most ${L.maxMemoryBytes / 1024 / 1024} MiB)`);
  if (params.N * params.r * params.p > L.maxWork) refuse('p', `at most ${Math.floor(L.maxWork / (params.N * params.r))} with N ${params.N} and r ${params.r} (N·r·p at most ${L.maxWork})`);
  return params;
}

/** The AES-256 key; `params` must have passed checkScryptParameters. */
export function deriveBackupKey(passphrase: string, salt: Buffer, params: ScryptParameters): Buffer {
  return scryptSync(passphrase, salt, KEY_BYTES, { ...params, maxmem: 128 * params.N * params.r + 1024 * 1024 });
}

function isWhole(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}
