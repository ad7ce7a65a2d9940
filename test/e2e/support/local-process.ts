/**
 * Private processes the e2e tier starts on loopback in place of a workload cluster's machines:
 * free ports, a child with its output in a log file, an HTTPS call with a client certificate (what
 * etcd and the kubelet stand-in require), and stopping a child for good.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as net from 'net';
import { CertFiles } from './local-pki';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Starts `bin args…` with stdout and stderr appended to logPath. */
export function startLogged(bin: string, args: string[], logPath: string): ChildProcess {
  if (!fs.existsSync(bin)) throw new Error(`${bin} does not exist (scripts/local-kube/build builds local-kube's binaries)`);
  const logFile = fs.openSync(logPath, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', logFile, logFile], detached: false });
  fs.closeSync(logFile);
  child.on('error', (e) => fs.appendFileSync(logPath, `\n[e2e] ${bin}: ${e.message}\n`)); // surfaces through exitCode checks, not as a crash
  return child;
}

/** SIGTERM, then waits for the exit (SIGKILL after 10 s). */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface TlsClient {
  readonly ca: string;
  readonly client: CertFiles;
}

/** An HTTPS request with a client certificate; resolves with the status and the body text. */
export async function tlsRequest(url: string, tls: TlsClient, method = 'GET', body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        ca: fs.readFileSync(tls.ca),
        cert: fs.readFileSync(tls.client.cert),
        key: fs.readFileSync(tls.client.key),
        headers: payload ? { 'content-type': 'application/json' } : {},
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}
