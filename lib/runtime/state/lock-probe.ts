/**
 * Whether a store's conditional writes can serve as a lock: rounds of simultaneous
 * `If-None-Match: *` writes of one fresh key. A lock needs exactly one winner every time; a round
 * with two means two runs starting together could both take a lock (Swift's S3 API checks before
 * it writes). No double win in some rounds is evidence, not proof.
 */
import { randomBytes } from 'crypto';
import { S3Client } from './s3-client';

export interface LockProbeResult {
  readonly rounds: number;
  readonly writers: number;
  /** Rounds in which exactly one writer created the key. */
  readonly single: number;
  /** Rounds in which more than one writer was told it created the key. */
  readonly multiple: number;
  /** Rounds nobody won (a store that refuses every conditional write cannot lock either). */
  readonly none: number;
}

/** Runs the rounds under `<prefix>/.capi-lock-probe/`, removing each key after its round. */
export async function probeConditionalWrites(s3: S3Client, prefix: string, writers: number, rounds: number): Promise<LockProbeResult> {
  const run = randomBytes(6).toString('hex');
  let single = 0;
  let multiple = 0;
  let none = 0;
  for (let r = 0; r < rounds; r++) {
    const key = `${prefix}/.capi-lock-probe/${run}-${r}`;
    const won = await Promise.all(Array.from({ length: writers }, (_, w) => s3.putIfAbsent(key, { probe: run, round: r, writer: w })));
    const winners = won.filter(Boolean).length;
    if (winners === 1) single++;
    else if (winners > 1) multiple++;
    else none++;
    await s3.delete(key);
  }
  return { rounds, writers, single, multiple, none };
}
