/** Seconds per named phase of an e2e suite, logged as each phase ends and kept for its summary file. */
export interface PhaseTimer {
  readonly timings: Record<string, number>;
  readonly log: (line: string) => void;
  timed<T>(phase: string, fn: () => Promise<T>): Promise<T>;
}

/** A timer whose log lines start with `[<suite>]`. */
export function phaseTimer(suite: string): PhaseTimer {
  const timings: Record<string, number> = {};
  const log = (line: string) => process.stderr.write(`[${suite}] ${line}\n`);
  return {
    timings,
    log,
    async timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
      const t0 = Date.now();
      try {
        return await fn();
      } finally {
        timings[phase] = Math.round((Date.now() - t0) / 100) / 10;
        log(`${phase}: ${timings[phase]}s`);
      }
    },
  };
}
