/**
 * CPU time this process spends on a piece of work, in milliseconds. The bounds of the scale tests
 * are on CPU time, not on the wall clock: a machine loaded by other jobs (CI runs the unit tests
 * beside the e2e suites) stretches wall time several times over, CPU time hardly at all, while
 * the quadratic work these tests guard against still misses the bounds by far.
 */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export function cpuTimed<T>(run: () => T): { cpuMs: number; result: T } {
  const start = process.cpuUsage();
  const result = run();
  return { cpuMs: cpuMsSince(start), result };
}

export async function cpuTimedAsync<T>(run: () => Promise<T>): Promise<{ cpuMs: number; result: T }> {
  const start = process.cpuUsage();
  const result = await run();
  return { cpuMs: cpuMsSince(start), result };
}
