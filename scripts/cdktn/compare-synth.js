#!/usr/bin/env node
/**
 * Compares the stacks of two synth runs (cdktf and cdktn) of copies of one checkout:
 *   compare-synth.js <rootA> <outA> <rootB> <outB>
 * Equal means: the same stacks, and per stack the same JSON once each checkout's path is replaced by
 * <repo> and the framework version in the metadata is set aside. Exit 1 with the first differences.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const [rootA, outA, rootB, outB] = process.argv.slice(2);
if (!outB) {
  console.error('usage: compare-synth.js <rootA> <outA> <rootB> <outB>');
  process.exit(2);
}

function stacks(root, out) {
  const dir = path.join(out, 'stacks');
  return Object.fromEntries(
    fs.readdirSync(dir).map((name) => {
      const json = JSON.parse(fs.readFileSync(path.join(dir, name, 'cdk.tf.json'), 'utf8').split(root).join('<repo>'));
      if (json['//']?.metadata) json['//'].metadata.version = '(framework version)';
      return [name, json];
    }),
  );
}

/** Paths where two JSON values differ (at most `limit`). */
function differences(a, b, at = '', out = [], limit = 10) {
  if (out.length >= limit) return out;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null || typeof a !== 'object') {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at || '(root)'}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`);
    return out;
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[key], b[key], `${at}/${key}`, out, limit);
  return out;
}

const a = stacks(rootA, outA);
const b = stacks(rootB, outB);
const problems = [];
const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
for (const name of names) {
  if (!a[name] || !b[name]) problems.push(`${name}: only in ${a[name] ? outA : outB}`);
  else problems.push(...differences(a[name], b[name]).map((d) => `${name}${d}`));
}
if (problems.length > 0) {
  console.error(`synth differs:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`same ${names.length} stacks: ${names.join(', ')}`);
