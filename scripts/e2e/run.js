#!/usr/bin/env node
/**
 * Runs the e2e suites side by side, each in a lane of its own (scripts/e2e/lane): a lane is a
 * world of its own on the shared local services — its own OpenStack project and user (so project
 * listings, application credentials and quotas are its own), its own kube-apiserver with the
 * Cluster API CRDs, its own ports and state folder for the controllers, its own e2e lock file and
 * Terraform plugin cache. Lane 0 is the default world the local services start with (what a
 * developer gets when running one suite); lanes 1.. are set up here, side by side, when more than
 * one suite runs at a time.
 *
 * What a suite may declare in its header (exclusive, global, lane 0): scripts/e2e/suites.js.
 * Suites start longest first in the first lane free; each suite is its own jest process, its
 * output kept in a log and printed whole when it ends, with a progress line every minute. Nothing
 * is retried. The table at the end gives each suite's start, seconds, lane and counts.
 *
 *   run.js [--lanes N] [--first-lane K] [--exclude <regex>] [<path regex>...] [-- <jest args>]
 *
 * --first-lane K uses lanes K..K+N-1 (a second run beside this one takes other lanes).
 * Environment: E2E_LANES (default 3; 1 runs the suites one after another in lane 0),
 * CAPI_OPENSTACK_CDKTF_CACHE, TEST_SUMMARY_FILE (each suite's counts are appended, tier e2e),
 * E2E_TIMINGS_FILE (one JSON line per suite, for .ci/run's report).
 */
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { laneDown, laneUp } = require('./lanes');
const { ROOT, recordDurations, selectSuites } = require('./suites');

const PROGRESS_SECONDS = 60;
const USAGE = 'usage: scripts/e2e/run.js [--lanes N] [--first-lane K] [--exclude <regex>] [<path regex>...] [-- <jest args>]';

function usage(message) {
  process.stderr.write(`${message ? `e2e: ${message}\n` : ''}${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { lanes: Number(process.env.E2E_LANES || 3), firstLane: 0, patterns: [], excludes: [], jestArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--') out.jestArgs.push(...argv.splice(i + 1));
    else if (a === '--lanes') out.lanes = Number(value());
    else if (a === '--first-lane') out.firstLane = Number(value());
    else if (a === '--exclude' || a === '--testPathIgnorePatterns') out.excludes.push(value());
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) out.jestArgs.push(a);
    else out.patterns.push(a);
  }
  if (!Number.isInteger(out.lanes) || out.lanes < 1 || out.lanes > 6) usage(`--lanes / E2E_LANES: expected a whole number from 1 to 6, found '${out.lanes}'`);
  if (!Number.isInteger(out.firstLane) || out.firstLane < 0 || out.firstLane + out.lanes > 7) usage(`--first-lane: expected a whole number from 0, with the last lane at most 6; found '${out.firstLane}'`);
  return out;
}

const fmt = (s) => `${Math.round(s)}`.padStart(5);

/**
 * A failed suite's failing tests, each with the first lines of jest's report (its `●` blocks), for
 * the recap .ci/run prints last: a run's full output is long, and where only its end is read the
 * cause must be there too.
 */
function failureRecap(name, verdict, log) {
  const lines = log.split('\n');
  const starts = lines.flatMap((l, i) => (/^\s*● /.test(l) ? [i] : []));
  const reports = starts.map((i, k) => lines.slice(i, Math.min(i + 14, starts[k + 1] ?? Infinity)).map((x) => x.slice(0, 300)).join('\n').trimEnd());
  const body = reports.length ? reports.slice(0, 6).join('\n  …\n') : lines.filter(Boolean).slice(-14).join('\n');
  return `--- ${name} (${verdict})\n${body}\n`;
}

/** Lanes, the suites waiting and running, and the results so far. */
class Scheduler {
  constructor(queue, laneIds, jestArgs, logDir, say) {
    Object.assign(this, { queue, laneIds, jestArgs, logDir, say });
    this.envs = laneIds.includes(0) ? { 0: {} } : {};
    this.running = new Map(); // lane -> { suite, started, child }
    this.results = [];
    this.laneFailures = [];
    this.t0 = Date.now();
  }

  /** The next suite that may start in lane n now (taken off the queue), or undefined. */
  pick(n) {
    const running = [...this.running.values()];
    if (running.some((r) => r.suite.exclusive)) return undefined;
    const held = new Set(running.flatMap((r) => r.suite.globals));
    const fits = (s) => !s.globals.some((g) => held.has(g)) && (!s.lane0 || n === 0);
    // lane 0 takes the suites only it can run first, so that they never wait behind a long one
    let i = n === 0 ? this.queue.findIndex((s) => s.lane0 && !s.exclusive && fits(s)) : -1;
    if (i < 0) i = this.queue.findIndex((s) => (s.exclusive ? running.length === 0 : fits(s)));
    // an exclusive suite at the head waits for the lanes to drain; nothing else overtakes it
    const head = this.queue.findIndex((s) => s.exclusive);
    if (i < 0 || (head >= 0 && head < i)) return undefined;
    return this.queue.splice(i, 1)[0];
  }

  /** Starts what can start in the lanes that are up and free. */
  fill() {
    for (const n of this.laneIds.filter((l) => this.envs[l] && !this.running.has(l))) {
      const suite = this.pick(n);
      if (suite) this.start(suite, n);
    }
    if (this.queue.length === 0 && this.running.size === 0) this.done();
  }

  start(suite, n) {
    const logFile = path.join(this.logDir, `${suite.name}.log`);
    const summaryFile = path.join(this.logDir, `${suite.name}.summary`);
    const out = fs.openSync(logFile, 'w');
    const env = { ...process.env, ...this.envs[n], E2E_LANE: String(n), TEST_SUMMARY_FILE: summaryFile, FORCE_COLOR: '0' };
    const jest = path.join(ROOT, 'node_modules', '.bin', 'jest');
    const child = spawn(jest, ['-c', 'test/e2e/jest.config.js', '--runTestsByPath', suite.file, ...this.jestArgs], { cwd: ROOT, env, stdio: ['ignore', out, out] });
    const started = Date.now();
    this.running.set(n, { suite, started, child });
    this.say(`start ${suite.name} in lane ${n}${suite.exclusive ? ` (alone: ${suite.exclusive})` : ''}`);
    child.on('exit', (code, signal) => {
      fs.closeSync(out);
      this.running.delete(n);
      this.finished(suite, n, { code: code ?? 1, signal, logFile, summaryFile, started });
      this.fill();
    });
  }

  finished(suite, lane, r) {
    const seconds = Math.round((Date.now() - r.started) / 1000);
    const lines = fs.existsSync(r.summaryFile) ? fs.readFileSync(r.summaryFile, 'utf8').trim().split('\n').filter(Boolean) : [];
    const counts = lines.map((l) => JSON.parse(l));
    const sum = (k) => counts.reduce((a, c) => a + c[k], 0);
    const failed = counts.length === 0 && r.code !== 0 ? 1 : sum('failed');
    const ok = r.code === 0 && failed === 0;
    const result = { suite: suite.name, lane, seconds, ok, passed: sum('passed'), failed, skipped: sum('skipped'), startS: Math.round((r.started - this.t0) / 1000) };
    this.results.push(result);
    const verdict = ok ? 'passed' : `FAILED, exit ${r.code}${r.signal ? ` ${r.signal}` : ''}`;
    process.stdout.write(`\n----- ${suite.name} (lane ${lane}, ${seconds} s, ${verdict}) -----\n${fs.readFileSync(r.logFile, 'utf8')}----- end of ${suite.name} -----\n\n`);
    if (process.env.TEST_SUMMARY_FILE) {
      fs.appendFileSync(process.env.TEST_SUMMARY_FILE, `${JSON.stringify({ tier: 'e2e', passed: result.passed, failed, skipped: result.skipped })}\n`);
    }
    if (!ok && process.env.E2E_FAILURES_FILE) fs.appendFileSync(process.env.E2E_FAILURES_FILE, failureRecap(suite.name, verdict, fs.readFileSync(r.logFile, 'utf8')));
  }

  /** Brings the extra lanes up side by side; each starts taking suites as soon as it is up. */
  bringUpLanes(extraLanes) {
    for (const n of extraLanes) {
      const t = Date.now();
      laneUp(n).then(
        (env) => {
          this.envs[n] = env;
          this.say(`lane ${n} up in ${Math.round((Date.now() - t) / 1000)} s`);
          this.fill();
        },
        (e) => {
          this.laneFailures.push(n);
          this.say(`lane ${n} did not come up; its suites go to the other lanes: ${e.message}`);
          if (Object.keys(this.envs).length === 0 && this.laneFailures.length === extraLanes.length) this.done();
        },
      );
    }
  }

  progress() {
    if (this.running.size === 0) return;
    const now = Date.now();
    const busy = [...this.running.entries()].map(([n, r]) => `${r.suite.name} (lane ${n}, ${Math.round((now - r.started) / 1000)}s)`);
    this.say(`running: ${busy.join(', ')}; waiting: ${this.queue.length}`);
  }

  run(extraLanes) {
    return new Promise((resolve) => {
      this.done = resolve;
      this.bringUpLanes(extraLanes);
      this.fill();
    });
  }
}

function report(s, wall) {
  const busy = s.results.reduce((a, r) => a + r.seconds, 0);
  const rows = [...s.results].sort((a, b) => a.startS - b.startS);
  const lines = [
    `e2e timing (${s.laneIds.length} lane(s), ${Math.round(wall)} s wall, ${busy} s of suites: ${(busy / Math.max(wall, 1)).toFixed(2)} suites at a time on average)`,
    '  start  secs  lane  result  passed/failed/skipped  suite',
    ...rows.map((r) => `  ${fmt(r.startS)} ${fmt(r.seconds)}  ${String(r.lane).padStart(4)}  ${r.ok ? 'ok    ' : 'FAILED'}  ${`${r.passed}/${r.failed}/${r.skipped}`.padEnd(21)}  ${r.suite}`),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.E2E_TIMINGS_FILE) fs.appendFileSync(process.env.E2E_TIMINGS_FILE, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const problems = [];
  const failed = s.results.filter((r) => !r.ok).map((r) => r.suite);
  if (failed.length > 0) problems.push(`${failed.length} suite(s) failed: ${failed.join(', ')}`);
  if (s.laneFailures.length > 0) problems.push(`lane(s) ${s.laneFailures.join(', ')} did not come up`);
  if (s.queue.length > 0) problems.push(`not run (no lane could take them): ${s.queue.map((q) => q.name).join(', ')}`);
  for (const p of problems) process.stdout.write(`e2e: ${p}\n`);
  return problems.length === 0;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const queue = selectSuites(args.patterns, args.excludes);
  if (queue.length === 0) usage(`no e2e suite matches ${args.patterns.join(' ') || '(all)'}`);
  const laneIds = [...Array(Math.min(args.lanes, queue.length)).keys()].map((i) => args.firstLane + i);
  const stranded = queue.filter((s) => s.lane0 && !laneIds.includes(0));
  if (stranded.length > 0) usage(`${stranded.map((s) => s.name).join(', ')} must run in lane 0 (${stranded[0].lane0}), which --first-lane ${args.firstLane} leaves out`);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-e2e-logs-'));
  const t0 = Date.now();
  const say = (line) => process.stdout.write(`[e2e ${fmt((Date.now() - t0) / 1000)}s] ${line}\n`);
  say(`${queue.length} suite(s) in lane(s) ${laneIds.join(', ')}; logs in ${logDir}`);

  const scheduler = new Scheduler(queue, laneIds, args.jestArgs, logDir, say);
  const extraLanes = laneIds.filter((n) => n > 0);
  const takeDown = () => extraLanes.map(laneDown).filter(Boolean).forEach((w) => say(`warning: ${w}`));
  // a stopped run stops its suites (each jest ends its own children) and takes its lanes down
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      say(`${signal}: stopping ${[...scheduler.running.values()].map((r) => r.suite.name).join(', ') || 'nothing'}`);
      for (const r of scheduler.running.values()) r.child.kill('SIGTERM');
      setTimeout(() => (takeDown(), process.exit(130)), 20_000);
    });
  }
  const progress = setInterval(() => scheduler.progress(), PROGRESS_SECONDS * 1000);
  await scheduler.run(extraLanes);
  clearInterval(progress);
  takeDown();
  recordDurations(scheduler.results);
  if (!report(scheduler, (Date.now() - t0) / 1000)) process.exit(1);
}

main().catch((e) => {
  process.stderr.write(`e2e: ${e.stack || e.message}\n`);
  process.exit(1);
});
