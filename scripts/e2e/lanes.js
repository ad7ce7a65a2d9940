/** Bringing e2e lanes up and down through scripts/e2e/lane (what a lane is: see that script). */
'use strict';
const { spawn, spawnSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const LANE = path.join(__dirname, 'lane');

/** `scripts/e2e/lane up <n>`; resolves with the lane's environment (its NAME=value lines). */
function laneUp(n) {
  return new Promise((resolve, reject) => {
    const child = spawn(LANE, ['up', String(n)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`scripts/e2e/lane up ${n} failed (exit ${code}):\n${err.slice(-3000)}`));
      const lines = out.split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l));
      resolve(Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])));
    });
  });
}

/** `scripts/e2e/lane down <n>`: stops the lane's kube-apiserver and controllers; returns a warning or undefined. */
function laneDown(n) {
  const r = spawnSync(LANE, ['down', String(n)], { encoding: 'utf8', cwd: ROOT });
  return r.status === 0 ? undefined : `scripts/e2e/lane down ${n} failed (exit ${r.status}): ${(r.stderr || '').slice(-1000)}`;
}

module.exports = { laneUp, laneDown };
