#!/usr/bin/env node
// A static HTTPS server for a Helm chart repository (index.yaml + packaged charts): GET and HEAD
// of the files directly in DIR, nothing else. Test tooling for scripts/local-charts/start.
// Usage: https-server.js DIR ADDRESS PORT CERT KEY
'use strict';
const fs = require('fs');
const https = require('https');
const path = require('path');

const [dir, address, port, cert, key] = process.argv.slice(2);
if (!dir || !address || !port || !cert || !key) {
  process.stderr.write('usage: https-server.js DIR ADDRESS PORT CERT KEY\n');
  process.exit(2);
}
const TYPES = { '.yaml': 'application/x-yaml', '.tgz': 'application/gzip', '.prov': 'text/plain' };

const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const name = decodeURIComponent(new URL(req.url, 'https://x').pathname).replace(/^\/+/, '');
  // one level of plain file names: no traversal, no hidden files
  const file = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(name) ? path.join(dir, name) : undefined;
  const stat = file && fs.statSync(file, { throwIfNoEntry: false });
  process.stderr.write(`${new Date().toISOString()} ${req.method} ${req.url} ${stat && stat.isFile() ? 200 : 404}\n`);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405).end();
    return;
  }
  if (!stat || !stat.isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-length': stat.size });
  if (req.method === 'HEAD') res.end();
  else fs.createReadStream(file).pipe(res);
});
server.listen(Number(port), address, () => process.stderr.write(`serving ${dir} on https://${address}:${port}/\n`));
