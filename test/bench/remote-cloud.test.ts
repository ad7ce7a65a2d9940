/**
 * The fleet bench's remote cloud (scripts/bench/remote-cloud.js) against real loopback servers: a
 * Keystone stand-in whose catalogue names another local API, and a kubeconfig. The clouds.yaml it
 * writes reaches Keystone through a relay that costs a round trip and rewrites the catalogue so
 * the other API is reached through a relay of its own; the kubeconfig points at a relay too.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';

interface Away {
  cloudsYaml: string;
  kubeconfig: string;
  relayedPorts(): number[];
  close(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { placeAway } = require('../../scripts/bench/remote-cloud.js') as {
  placeAway(options: { cloudsYamlPath: string; kubeconfigPath: string; rttMs: number; workDir: string; repo: string }): Promise<Away>;
};

function serve(handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const portOf = (s: http.Server) => (s.address() as { port: number }).port;

async function get(url: string): Promise<{ status: number; body: string; ms: number }> {
  const t0 = Date.now();
  const r = await fetch(url);
  return { status: r.status, body: await r.text(), ms: Date.now() - t0 };
}

describe('scripts/bench/remote-cloud.js', () => {
  const servers: http.Server[] = [];
  let work: string;
  let away: Away;
  let nova: http.Server;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'remote-cloud-'));
    nova = await serve((req, res) => res.end(`nova saw ${req.url}`));
    const keystone = await serve((_req, res) =>
      res.end(JSON.stringify({ token: { catalog: [{ type: 'compute', endpoints: [{ url: `http://127.0.0.1:${portOf(nova)}/v2.1` }] }] } })),
    );
    const kube = await serve((_req, res) => res.end('ok'));
    servers.push(nova, keystone, kube);
    const clouds = path.join(work, 'in-clouds.yaml');
    fs.writeFileSync(clouds, stringify({ clouds: { a: { auth: { auth_url: `http://127.0.0.1:${portOf(keystone)}/v3`, password: 'p' } } } }));
    const kubeconfig = path.join(work, 'in-kubeconfig');
    fs.writeFileSync(kubeconfig, stringify({ clusters: [{ name: 'k', cluster: { server: `https://127.0.0.1:${portOf(kube)}` } }] }));
    const out = path.join(work, 'out');
    fs.mkdirSync(out);
    away = await placeAway({ cloudsYamlPath: clouds, kubeconfigPath: kubeconfig, rttMs: 80, workDir: out, repo: path.resolve(__dirname, '..', '..') });
  });
  afterAll(async () => {
    await away?.close();
    for (const s of servers) s.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('reaches Keystone a round trip away, and its catalogue sends the client through a relay to the other API', async () => {
    const authUrl = parse(fs.readFileSync(away.cloudsYaml, 'utf8')).clouds.a.auth.auth_url as string;
    expect(authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3$/);
    const token = await get(`${authUrl}/auth/tokens`);
    expect(token.status).toBe(200);
    expect(token.ms).toBeGreaterThanOrEqual(80);
    const computeUrl = JSON.parse(token.body).token.catalog[0].endpoints[0].url as string;
    expect(computeUrl).not.toContain(`:${portOf(nova)}/`);
    const server = await get(`${computeUrl}/servers`);
    expect(server.body).toBe('nova saw /v2.1/servers');
    expect(server.ms).toBeGreaterThanOrEqual(160); // connection + exchange
    expect(away.relayedPorts()).toContain(portOf(nova));
  });

  it('points the kubeconfig at a relay of the kube-apiserver, keeping the address the certificate names', () => {
    const server = parse(fs.readFileSync(away.kubeconfig, 'utf8')).clusters[0].cluster.server as string;
    expect(server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(away.relayedPorts()).toContain(portOf(servers[2]));
    expect(fs.statSync(away.kubeconfig).mode & 0o077).toBe(0);
  });
});
