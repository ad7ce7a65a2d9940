/** The verified clusterctl download, against a loopback HTTP server standing in for the release host. */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { cachedClusterctlPath, verifiedClusterctl } from '../../../lib/runtime/management/clusterctl-download';

const BINARY = Buffer.from('#!/bin/sh\necho v1.12.4\n');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('verified clusterctl download', () => {
  let server: http.Server;
  let url: string;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests++;
      if (req.url === '/clusterctl-linux-amd64') res.end(BINARY);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('downloads once into the cache, executable, and verified; the second call uses the cache', async () => {
    const env = { CAPI_OPENSTACK_CDKTF_CACHE: fs.mkdtempSync(path.join(os.tmpdir(), 'clusterctl-cache-')) };
    const pin = { version: 'v1.12.4', url: `${url}/clusterctl-linux-amd64`, sha256: sha(BINARY) };
    const lines: string[] = [];
    const file = await verifiedClusterctl(env, pin, (l) => lines.push(l));
    expect(file).toBe(cachedClusterctlPath(env, pin));
    expect(fs.readFileSync(file).equals(BINARY)).toBe(true);
    expect(fs.statSync(file).mode & 0o111).not.toBe(0);
    expect(lines).toEqual([`downloading clusterctl v1.12.4 from ${pin.url} (verified against its pinned SHA-256)`]);
    const before = requests;
    await verifiedClusterctl(env, pin, () => undefined);
    expect(requests).toBe(before);
  });

  test('a file whose SHA-256 differs from the pin is refused and not kept', async () => {
    const env = { CAPI_OPENSTACK_CDKTF_CACHE: fs.mkdtempSync(path.join(os.tmpdir(), 'clusterctl-cache-')) };
    const pin = { version: 'v1.12.4', url: `${url}/clusterctl-linux-amd64`, sha256: '0'.repeat(64) };
    await expect(verifiedClusterctl(env, pin, () => undefined)).rejects.toThrow(`has SHA-256 ${sha(BINARY)}, expected ${'0'.repeat(64)}: not used`);
    expect(fs.existsSync(cachedClusterctlPath(env, pin))).toBe(false);
  });

  test('a failed download names the URL and the way round it', async () => {
    const env = { CAPI_OPENSTACK_CDKTF_CACHE: fs.mkdtempSync(path.join(os.tmpdir(), 'clusterctl-cache-')) };
    const pin = { version: 'v1.12.4', url: `${url}/missing`, sha256: sha(BINARY) };
    await expect(verifiedClusterctl(env, pin, () => undefined)).rejects.toThrow(`downloading clusterctl v1.12.4 from ${url}/missing failed: HTTP 404; give a clusterctl with --clusterctl or CAPI_OPENSTACK_CLUSTERCTL`);
  });
});
