/** Small numeric and table helpers shared by the bench scripts. */
'use strict';

/** The middle value (mean of the two middle ones for an even count). */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function round(x, digits = 3) {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

/** A plain-text table: first column left-aligned, the others right-aligned. */
function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

module.exports = { median, round, table };
