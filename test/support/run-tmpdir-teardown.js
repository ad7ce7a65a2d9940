/** Removes the run's temporary folder (run-tmpdir-setup.js); KEEP_TEST_TMPDIR=1 keeps it and says where. */
const fs = require('fs');

module.exports = async () => {
  const dir = process.env.CAPI_UNIT_RUN_TMPDIR;
  if (!dir) return;
  if (process.env.KEEP_TEST_TMPDIR === '1') {
    process.stderr.write(`the run's temporary files are kept in ${dir}\n`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
};
