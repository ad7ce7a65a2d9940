'use strict';
/**
 * summary.md of the plan stage (also the GitHub job summary): what reviewers approve. It names the
 * commit, each saved plan's digests and the review digest that the apply job checks
 * (scripts/pipeline/review.js).
 */
const { runDigest } = require('./review');

/** summary.md of a pipeline.json document. */
function summary(doc) {
  const rows = (doc.stacks ?? []).map((s) => {
    const c = s.changes;
    const counts = c ? `${c.add} to add, ${c.change} to change, ${c.destroy} to destroy${c.replace ? `, ${c.replace} to replace` : ''}` : '';
    return `| \`${s.name}\` | ${s.status} | ${counts} | ${s.seconds === undefined ? '' : `${s.seconds} s`} | ${s.detail ?? ''} |`;
  });
  const deferred = (doc.stacks ?? []).filter((s) => s.status === 'deferred').length;
  const verb = doc.mode === 'destroy' ? 'destroy' : 'apply';
  const saved = doc.mode === 'drift' ? [] : (doc.applyOrder ?? []);
  return [
    `### ${doc.mode === 'destroy' ? 'Destroy plan' : doc.mode === 'drift' ? 'Drift check' : 'Plan'} of environment \`${doc.environment}\``,
    '',
    `commit \`${doc.commit}\`, state backend: ${doc.backend}`,
    '',
    ...(saved.length > 0
      ? [
          `Review digest \`${runDigest(doc)}\`: the ${verb} job synthesizes commit \`${doc.commit}\` itself and runs a saved plan only if it holds exactly that configuration (provisioners included) and state backend and has the digests below; it prints this review digest before it changes anything.`,
          '',
          ...saved.map((name) => {
            const s = (doc.stacks ?? []).find((x) => x.name === name) ?? {};
            return `- \`${name}\`: configuration \`${s.configDigest ?? '(none)'}\`, plan file \`${s.planDigest ?? '(none)'}\``;
          }),
          '',
        ]
      : []),
    '| stack | result | resources | time | note |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    doc.mode === 'drift'
      ? driftLine(doc.stacks ?? [])
      : (doc.applyOrder ?? []).length > 0
        ? `The ${verb} stage runs these saved plans in order: ${doc.applyOrder.map((s) => `\`${s}\``).join(' → ')}.`
        : `Nothing to ${verb}.`,
    deferred > 0 ? `${deferred} stack(s) deferred: their plan depends on stacks with pending changes. Run the pipeline again after this ${verb}.` : '',
  ].join('\n');
}

function driftLine(stacks) {
  const drifted = stacks.filter((s) => s.status === 'drift').map((s) => `\`${s.name}\``);
  return drifted.length > 0 ? `Drifted from the configuration (a plan shows changes): ${drifted.join(', ')}.` : 'No stack drifted: every plan is empty.';
}

module.exports = { summary };
