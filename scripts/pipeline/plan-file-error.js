'use strict';
/**
 * Why a file from the plan job is refused (scripts/pipeline/planfile.js and the readers it uses),
 * and how its text may be shown: the plan job is not trusted, so names read from its files reach a
 * log only escaped.
 */
class PlanFileError extends Error {}

const fail = (message) => {
  throw new PlanFileError(message);
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Invalid UTF-8 is refused: replacing it would make two byte strings one text. */
function utf8(bytes, what) {
  try {
    return UTF8.decode(bytes);
  } catch {
    return fail(`${what} is not valid UTF-8`);
  }
}

/**
 * A message as a log line may hold it: what the plan file names (entries, keys, modules) is the plan
 * job's text, so control characters are escaped (a CI log reads commands from line starts) and
 * long text is cut.
 */
function shown(text, max = 400) {
  const s = String(text);
  const cut = s.length > max ? `${s.slice(0, max - 3)}... (${s.length} characters)` : s;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

module.exports = { PlanFileError, fail, utf8, shown };
