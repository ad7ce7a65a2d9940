/**
 * The fleet bench's latency relay (scripts/bench/latency-relay.js), on real loopback sockets: a
 * connection costs a round trip before the service sees it, each exchange one more, bytes arrive
 * whole and in order, and ends travel both ways.
 */
import * as net from 'net';

interface Relay {
  port: number;
  close(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startLatencyRelay } = require('../../scripts/bench/latency-relay.js') as {
  startLatencyRelay(options: { targetPort: number; rttMs: number }): Promise<Relay>;
};

function echoServer(): Promise<net.Server> {
  const server = net.createServer((s) => s.on('data', (d) => s.write(d)).on('end', () => s.end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Sends each message after the previous answer; resolves with the answers and when each came. */
function exchange(port: number, messages: string[]): Promise<{ answers: string[]; atMs: number[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const answers: string[] = [];
    const atMs: number[] = [];
    let expected = messages[0].length;
    let buffer = '';
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', reject);
    socket.on('data', (d) => {
      buffer += d;
      if (buffer.length < expected) return;
      answers.push(buffer);
      atMs.push(Date.now() - t0);
      buffer = '';
      const next = messages[answers.length];
      if (next === undefined) return void socket.end();
      expected = next.length;
      socket.write(next);
    });
    socket.on('end', () => resolve({ answers, atMs, ended: true }));
    socket.write(messages[0]);
  });
}

describe('scripts/bench/latency-relay.js', () => {
  let echo: net.Server;
  beforeAll(async () => {
    echo = await echoServer();
  });
  afterAll(() => echo.close());
  const echoPort = () => (echo.address() as net.AddressInfo).port;

  it('adds one round trip to the connection and one to every exchange', async () => {
    const relay = await startLatencyRelay({ targetPort: echoPort(), rttMs: 60 });
    try {
      const big = 'x'.repeat(200_000);
      const { answers, atMs, ended } = await exchange(relay.port, ['first', big, 'third']);
      expect(answers).toEqual(['first', big, 'third']);
      expect(ended).toBe(true);
      expect(atMs[0]).toBeGreaterThanOrEqual(120); // handshake + first exchange
      expect(atMs[1] - atMs[0]).toBeGreaterThanOrEqual(60);
      expect(atMs[2] - atMs[1]).toBeGreaterThanOrEqual(60);
    } finally {
      await relay.close();
    }
  });

  // No upper time bound here: on a loaded machine loopback itself took over a second (its speed is
  // the fleet bench's business, not a unit test's).
  it('with no delay relays every exchange whole and ends both ways', async () => {
    const relay = await startLatencyRelay({ targetPort: echoPort(), rttMs: 0 });
    try {
      const { answers, ended } = await exchange(relay.port, ['a', 'b']);
      expect(answers).toEqual(['a', 'b']);
      expect(ended).toBe(true);
    } finally {
      await relay.close();
    }
  });

  it('refuses a round trip that is not a number of milliseconds', () => {
    expect(() => startLatencyRelay({ targetPort: echoPort(), rttMs: -1 })).toThrow('rttMs must be a number >= 0, got -1');
    expect(() => startLatencyRelay({ targetPort: echoPort(), rttMs: Number('20ms') })).toThrow('got NaN');
  });
});
