// A read-only HTTPS file server for the stand-in: the site mirror its user data downloads from
// (provider manifests, tools). Serves files under ROOT by GET/HEAD only, no listings, no paths
// outside ROOT; logs one line per request so a test can tell what the VM fetched.
// Usage: node server.js ROOT ADDRESS PORT CERT KEY
'use strict';
const fs = require('fs');
const https = require('https');
const path = require('path');

const [root, address, port, cert, key] = process.argv.slice(2);
if (!key) {
  console.error('usage: node server.js ROOT ADDRESS PORT CERT KEY');
  process.exit(2);
}
const base = fs.realpathSync(root);

const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const done = (code, body) => {
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${code}`);
    res.writeHead(code, { 'content-type': 'text/plain' });
    res.end(body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return done(405, 'method not allowed\n');
  let file;
  try {
    file = fs.realpathSync(path.join(base, decodeURIComponent(new URL(req.url, 'https://x').pathname)));
  } catch {
    return done(404, 'not found\n');
  }
  if (!file.startsWith(base + path.sep) || !fs.statSync(file).isFile()) return done(404, 'not found\n');
  console.log(`${new Date().toISOString()} ${req.method} ${req.url} 200`);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': fs.statSync(file).size });
  if (req.method === 'HEAD') return res.end();
  fs.createReadStream(file).pipe(res);
});
server.listen(Number(port), address, () => console.log(`serving ${base} on https://${address}:${port}`));
