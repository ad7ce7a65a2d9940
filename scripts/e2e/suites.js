/**
 * The e2e suites (test/e2e/*.e2e.test.ts) and what each one's header declares for the scheduler
 * (scripts/e2e/run.js):
 *   @e2e-exclusive <why>          runs alone: no other suite runs beside it
 *   @e2e-global <name>[, <name>]  uses something every lane sees (a Docker network, a fixed host
 *                                 port, a machine-wide setting): no two suites naming the same
 *                                 <name> run at the same time
 *   @e2e-lane 0 <why>             runs in lane 0 only (it uses the default world's files by their
 *                                 documented paths, as the README does)
 * and how long each is expected to take: the last run's seconds on this machine, else the
 * committed figures of scripts/e2e/durations.json.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE || path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const LAST_DURATIONS = path.join(CACHE, 'e2e', 'durations.json');
const COMMITTED_DURATIONS = path.join(__dirname, 'durations.json');

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** What a suite's header comment declares. */
function declarations(file) {
  const text = fs.readFileSync(file, 'utf8');
  const header = text.slice(0, text.indexOf('*/') + 2);
  const exclusive = /@e2e-exclusive\s+(.+)/.exec(header);
  const global = /@e2e-global\s+(\S+(?:,\s*\S+)*)/.exec(header);
  const lane0 = /@e2e-lane\s+0\b\s*(.*)/.exec(header);
  return {
    exclusive: exclusive ? exclusive[1].trim() : undefined,
    globals: global ? global[1].split(/[\s,]+/).filter(Boolean) : [],
    lane0: lane0 ? lane0[1].trim() || 'declared' : undefined,
  };
}

/** The suites whose path matches one of `patterns` (all when none) and none of `excludes`, longest first. */
function selectSuites(patterns, excludes) {
  const dir = path.join(ROOT, 'test', 'e2e');
  const last = readJson(LAST_DURATIONS);
  const committed = readJson(COMMITTED_DURATIONS);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.e2e.test.ts'))
    .map((f) => path.join(dir, f))
    .filter((f) => patterns.length === 0 || patterns.some((p) => new RegExp(p).test(f)))
    .filter((f) => !excludes.some((p) => new RegExp(p).test(f)))
    .map((file) => {
      const name = path.basename(file, '.e2e.test.ts');
      return { file, name, expectedSeconds: last[name] ?? committed[name] ?? 60, ...declarations(file) };
    })
    .sort((a, b) => b.expectedSeconds - a.expectedSeconds);
}

/**
 * Keeps this run's seconds per suite for the next run's order (read again: a run beside this one may
 * have written). Only suites that passed and ran a test: one that failed or skipped early says
 * nothing of its length (a run whose local cloud did not start left control-loop at 9 s, and the
 * next run started it 12 minutes late, behind every short suite).
 */
function recordDurations(results) {
  fs.mkdirSync(path.dirname(LAST_DURATIONS), { recursive: true });
  const measured = results.filter((r) => r.ok && r.passed > 0);
  const merged = { ...readJson(LAST_DURATIONS), ...Object.fromEntries(measured.map((r) => [r.suite, r.seconds])) };
  fs.writeFileSync(LAST_DURATIONS, `${JSON.stringify(merged, null, 2)}\n`);
}

module.exports = { ROOT, declarations, selectSuites, recordDurations };
