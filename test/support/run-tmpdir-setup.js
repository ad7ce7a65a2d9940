/**
 * One temporary folder per `npm test` run (jest's globalSetup): the tests' fixtures, cdktf's synth
 * folders and the scripts the tests start (mktemp) all land under it through TMPDIR, and
 * run-tmpdir-teardown.js removes it when the run ends, so a run leaves nothing in /tmp.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-unit-run-'));
  process.env.CAPI_UNIT_RUN_TMPDIR = dir;
  process.env.TMPDIR = dir;
};
