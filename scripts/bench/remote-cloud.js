/**
 * Puts the local cloud and the local management cluster a round trip away, for the fleet bench:
 * a real cloud and its management VM are tens of milliseconds from the laptop or CI runner that
 * plans, and parallel plans overlap exactly that waiting. Keystone is reached through an HTTP
 * relay that delays each exchange and rewrites the service catalogue so that every other API
 * (Nova, Neutron, Glance, ...) is reached through a TCP latency relay of its own, started on first
 * sight; the kube-apiserver gets one too. Everything stays on 127.0.0.1.
 */
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { startLatencyRelay } = require('./latency-relay');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const LOOPBACK_URL = /http:\/\/(?:127\.0\.0\.1|localhost):(\d+)/g;

/** An HTTP relay for Keystone: each exchange costs `rttMs`; loopback URLs in bodies are mapped by `portFor`. */
function startKeystoneRelay(targetPort, rttMs, portFor) {
  const server = http.createServer((req, res) => {
    const body = [];
    req.on('data', (d) => body.push(d));
    req.on('end', async () => {
      await sleep(rttMs / 2);
      const headers = { ...req.headers, host: `127.0.0.1:${targetPort}` };
      const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers }, (up) => {
        const chunks = [];
        up.on('data', (d) => chunks.push(d));
        up.on('end', async () => {
          let text = Buffer.concat(chunks).toString('utf8');
          const ports = [...new Set([...text.matchAll(LOOPBACK_URL)].map((m) => Number(m[1])))];
          const mapped = new Map(await Promise.all(ports.map(async (p) => [p, await portFor(p)])));
          text = text.replace(LOOPBACK_URL, (_, p) => `http://127.0.0.1:${mapped.get(Number(p))}`);
          const out = Buffer.from(text, 'utf8');
          const outHeaders = { ...up.headers, 'content-length': String(out.length) };
          delete outHeaders['transfer-encoding'];
          await sleep(rttMs / 2);
          res.writeHead(up.statusCode, outHeaders);
          res.end(out);
        });
      });
      upstream.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      upstream.end(Buffer.concat(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Starts the relays. Returns { cloudsYaml, kubeconfig, close() }: a clouds.yaml whose auth_url
 * points at the Keystone relay and a kubeconfig whose server is the kube-apiserver's relay, both
 * written into `workDir`.
 */
async function placeAway({ cloudsYamlPath, kubeconfigPath, rttMs, workDir, repo }) {
  const YAML = require(require.resolve('yaml', { paths: [repo] }));
  const relays = new Map();
  let keystonePort;
  let keystone;
  const portFor = (port) => {
    if (port === keystonePort) return keystone.address().port;
    if (!relays.has(port)) relays.set(port, startLatencyRelay({ targetPort: port, rttMs }));
    return relays.get(port).then((r) => r.port);
  };

  const clouds = YAML.parse(fs.readFileSync(cloudsYamlPath, 'utf8'));
  for (const cloud of Object.values(clouds.clouds)) {
    const url = new URL(cloud.auth.auth_url);
    keystonePort = Number(url.port);
    keystone ??= await startKeystoneRelay(keystonePort, rttMs, portFor);
    url.port = String(keystone.address().port);
    cloud.auth.auth_url = url.toString();
  }
  const kube = YAML.parse(fs.readFileSync(kubeconfigPath, 'utf8'));
  const server = new URL(kube.clusters[0].cluster.server);
  server.port = String(await portFor(Number(server.port)));
  kube.clusters[0].cluster.server = server.origin;

  const cloudsYaml = path.join(workDir, 'clouds.yaml');
  const kubeconfig = path.join(workDir, 'kubeconfig');
  fs.writeFileSync(cloudsYaml, YAML.stringify(clouds), { mode: 0o600 });
  fs.writeFileSync(kubeconfig, YAML.stringify(kube), { mode: 0o600 });
  return {
    cloudsYaml,
    kubeconfig,
    relayedPorts: () => [keystonePort, ...relays.keys()].sort((a, b) => a - b),
    close: async () => {
      await Promise.all([...relays.values()].map(async (r) => (await r).close()));
      keystone.closeAllConnections();
      await new Promise((done) => keystone.close(() => done()));
    },
  };
}

module.exports = { placeAway };
