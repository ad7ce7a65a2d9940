/**
 * Jest reporter: after the default report, one plain line `<tier>: N passed, N failed, N skipped`
 * (a format CI systems read in any language). With TEST_SUMMARY_FILE set, the same counts are
 * appended to that file as JSON, so .ci/run can print the total of all tiers last.
 * TEST_SUMMARY_TIER overrides the tier's name.
 */
const fs = require('fs');

class SummaryReporter {
  constructor(_globalConfig, options = {}) {
    // TEST_SUMMARY_TIER names a tier that reuses a config (the cdktn run of the unit tier's files)
    this.tier = process.env.TEST_SUMMARY_TIER || options.tier || 'tests';
  }

  onRunComplete(_contexts, results) {
    // A suite that fails to load has no failed test, but must not count as a pass.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const counts = { tier: this.tier, passed: results.numPassedTests, failed, skipped: results.numPendingTests + results.numTodoTests };
    process.stdout.write(`\n${this.tier}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
    if (process.env.TEST_SUMMARY_FILE) fs.appendFileSync(process.env.TEST_SUMMARY_FILE, `${JSON.stringify(counts)}\n`);
  }
}

module.exports = SummaryReporter;
