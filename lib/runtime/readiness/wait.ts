/**
 * Polls the readiness checks until all pass or the time is up. Clock and sleep are injectable so
 * the timing logic is testable without waiting.
 */
import { CheckResult, ReadinessCheck, checkLabel, evaluateCheck, managementReadinessChecks } from './checks';
import { KubeClient } from './kube-client';

export interface WaitOptions {
  readonly server: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** @default 20 minutes */
  readonly timeoutMs?: number;
  /** Pause between polls. @default 2 s */
  readonly intervalMs?: number;
  /** A progress line is printed about this often. @default 30 s */
  readonly progressEveryMs?: number;
  /** Per-request limit. @default 10 s */
  readonly requestTimeoutMs?: number;
  /** Receives progress lines. @default console.log */
  readonly log?: (line: string) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default managementReadinessChecks() */
  readonly checks?: readonly ReadinessCheck[];
}

export interface WaitResult {
  readonly elapsedMs: number;
  readonly polls: number;
}

/** Thrown on timeout; `message` is the one-screen report, `results` the last observation. */
export class ReadinessTimeoutError extends Error {
  constructor(message: string, public readonly results: readonly CheckResult[]) {
    super(message);
    this.name = 'ReadinessTimeoutError';
  }
}

export async function waitForManagement(options: WaitOptions): Promise<WaitResult> {
  const timeoutMs = options.timeoutMs ?? 20 * 60_000;
  const intervalMs = options.intervalMs ?? 2_000;
  const progressEveryMs = options.progressEveryMs ?? 30_000;
  const log = options.log ?? ((line: string) => console.log(line));
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const checks = options.checks ?? managementReadinessChecks();
  const { server, caPem, certPem, keyPem } = options;
  const client = new KubeClient({ server, caPem, certPem, keyPem, timeoutMs: options.requestTimeoutMs });

  const start = now();
  let lastProgress = -Infinity;
  log(`management cluster: waiting up to ${formatDuration(timeoutMs)} for ${options.server} (${summarizeChecks(checks)})`);
  for (let polls = 1; ; polls++) {
    const results = await pollOnce(client, checks, options.server);
    const elapsed = now() - start;
    if (results.every((r) => r.ok)) {
      log(`management cluster: ready after ${formatDuration(elapsed)} (${summarizeChecks(checks)})`);
      return { elapsedMs: elapsed, polls };
    }
    if (elapsed >= timeoutMs) throw new ReadinessTimeoutError(timeoutReport(results, elapsed, timeoutMs), results);
    if (now() - lastProgress >= progressEveryMs) {
      lastProgress = now();
      log(progressLine(results, elapsed, timeoutMs));
    }
    await sleep(Math.min(intervalMs, timeoutMs - elapsed));
  }
}

/**
 * One round: the API first; when it cannot be reached at all, the other checks are not tried
 * (they would only repeat the same transport error).
 */
export async function pollOnce(client: KubeClient, checks: readonly ReadinessCheck[], server: string): Promise<CheckResult[]> {
  const run = (c: ReadinessCheck) => client.get(c.path).then((response) => ({ response, result: evaluateCheck(c, response, server) }));
  const api = await Promise.all(checks.filter((c) => c.kind === 'api').map(run));
  const rest = checks.filter((c) => c.kind !== 'api');
  if (api.some(({ response }) => response.kind === 'error')) {
    const skipped = rest.map((c): CheckResult => ({ check: c, ok: false, reason: `${checkLabel(c, server)} not checked (API not reachable)` }));
    return [...api.map(({ result }) => result), ...skipped];
  }
  const others = await Promise.all(rest.map(run));
  return [...api, ...others].map(({ result }) => result);
}

/** `management cluster: 3m30s of 20m — API ok, CRDs 7/7 established, controllers 4/6 available (waiting for …)` */
export function progressLine(results: readonly CheckResult[], elapsedMs: number, timeoutMs: number): string {
  const head = `management cluster: ${formatDuration(elapsedMs)} of ${formatDuration(timeoutMs)} — `;
  const api = results.filter((r) => r.check.kind === 'api');
  const apiFailure = api.find((r) => !r.ok);
  if (apiFailure) return head + apiFailure.reason;
  const group = (kind: 'crd' | 'deployment', noun: string, verb: string): string => {
    const of = results.filter((r) => r.check.kind === kind);
    const waiting = of.filter((r) => !r.ok).map((r) => r.check.name);
    const count = `${noun} ${of.length - waiting.length}/${of.length} ${verb}`;
    return waiting.length ? `${count} (waiting for ${waiting.join(', ')})` : count;
  };
  return `${head}API ok, ${group('crd', 'CRDs', 'established')}, ${group('deployment', 'controllers', 'available')}`;
}

export function timeoutReport(results: readonly CheckResult[], elapsedMs: number, timeoutMs: number): string {
  const failing = results.filter((r) => !r.ok);
  return [
    `management cluster not ready after ${formatDuration(elapsedMs)} (timeout ${formatDuration(timeoutMs)}): ` +
      `${failing.length} of ${results.length} checks failing:`,
    ...failing.map((r) => `  - ${r.reason}`),
  ].join('\n');
}

function summarizeChecks(checks: readonly ReadinessCheck[]): string {
  const count = (kind: string): number => checks.filter((c) => c.kind === kind).length;
  return `API, ${count('crd')} CRDs, ${count('deployment')} controllers`;
}

/** 45s, 3m30s, 20m, 1h5m. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (total === 0) return '0s';
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
