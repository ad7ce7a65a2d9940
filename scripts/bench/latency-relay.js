/**
 * A TCP relay on 127.0.0.1 that puts a round trip of `rttMs` between its clients and a local
 * service: a connection reaches the service one round trip late (the TCP handshake), and every
 * chunk, either way, arrives half a round trip after it was sent, in order. The fleet bench uses it
 * to plan against a management cluster as far away as a real one is (a VM in the cloud, reached from
 * a laptop or a CI runner), which loopback alone cannot show. TLS passes through untouched.
 */
'use strict';
const net = require('net');

/** Sends `chunk` to `socket` `delayMs` from now; chunks keep their order (timers of one delay fire FIFO). */
function later(socket, delayMs, chunk) {
  setTimeout(() => {
    if (!socket.destroyed) socket.write(chunk);
  }, delayMs);
}

/**
 * Starts the relay. Resolves to { port, close() }: `port` is where clients connect instead of
 * `targetPort`; `close()` stops accepting and cuts open connections.
 */
function startLatencyRelay({ targetPort, rttMs, targetHost = '127.0.0.1' }) {
  if (!(Number.isFinite(rttMs) && rttMs >= 0)) throw new Error(`rttMs must be a number >= 0, got ${rttMs}`);
  const oneWayMs = rttMs / 2;
  const open = new Set();
  const server = net.createServer((client) => {
    open.add(client);
    const pending = [];
    let upstream;
    let clientEnded = false;
    client.on('data', (chunk) => (upstream ? later(upstream, oneWayMs, chunk) : pending.push(chunk)));
    // An end travels like data: after the bytes sent before it.
    client.on('end', () => (upstream ? setTimeout(() => upstream.end(), oneWayMs) : (clientEnded = true)));
    setTimeout(() => {
      if (client.destroyed) return;
      upstream = net.connect(targetPort, targetHost, () => {
        for (const chunk of pending.splice(0)) later(upstream, oneWayMs, chunk);
        if (clientEnded) setTimeout(() => upstream.end(), oneWayMs);
      });
      open.add(upstream);
      upstream.on('data', (chunk) => later(client, oneWayMs, chunk));
      upstream.on('end', () => setTimeout(() => client.end(), oneWayMs));
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => open.delete(upstream));
    }, rttMs);
    client.on('error', () => upstream?.destroy());
    client.on('close', () => open.delete(client));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

module.exports = { startLatencyRelay };
