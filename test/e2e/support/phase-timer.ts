import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

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

/** Writes a suite's summary to <tmp>/capi-e2e-results/<suite>.json and logs its timings. */
export function writeSuiteSummary(suite: string, timer: PhaseTimer, summary: Record<string, unknown>): void {
  const dir = path.join(os.tmpdir(), 'capi-e2e-results');
  const file = path.join(dir, `${suite}.json`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ suite, ...summary, secondsPerPhase: timer.timings, at: new Date().toISOString() }, null, 2)}\n`);
  timer.log(`timings (s): ${Object.entries(timer.timings).map(([k, v]) => `${k} ${v}`).join(', ')} → ${file}`);
}
