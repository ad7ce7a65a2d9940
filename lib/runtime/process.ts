/**
 * Runs a command's promise as the process: its result becomes the exit code; an unexpected
 * rejection prints one line (`<prefix><message>`) on stderr and exits 1.
 */
export function exitWith(run: Promise<number>, failurePrefix: string): void {
  run.then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${failurePrefix}${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

/** Writes a line to stdout / stderr (the output functions of the bins). */
export const stdoutLine = (line: string): void => void process.stdout.write(`${line}\n`);
export const stderrLine = (line: string): void => void process.stderr.write(`${line}\n`);
