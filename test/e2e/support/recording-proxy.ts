/**
 * An outbound HTTP(S) proxy stand-in for the node settings checks (test tooling): it listens where
 * the node stand-ins reach the host (the test dockerd's bridge address), records every request a
 * client sends it (`CONNECT host:port` for https, `GET http://…` for http) and answers each with
 * 403, forwarding nothing. Whatever a node sends through the proxy shows up in `requests`; a node
 * whose NO_PROXY covers what it talks to (the registry mirror, the API) sends nothing.
 */
import * as http from 'http';
import { AddressInfo } from 'net';

export interface ProxiedRequest {
  /** `CONNECT host:port`, or the method and absolute URL of a plain-http request. */
  readonly line: string;
  readonly from: string;
  readonly at: number;
}

export class RecordingProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly server: http.Server;

  private constructor(readonly host: string) {
    this.server = http.createServer((req, res) => {
      this.note(`${req.method} ${req.url}`, req.socket.remoteAddress);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('refused by the e2e recording proxy\n');
    });
    this.server.on('connect', (req: http.IncomingMessage, socket) => {
      this.note(`CONNECT ${req.url}`, req.socket.remoteAddress);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
  }

  /** Starts a proxy on `host` (an address of this machine), on a free port. */
  static async start(host: string): Promise<RecordingProxy> {
    const p = new RecordingProxy(host);
    await new Promise<void>((resolve, reject) => {
      p.server.once('error', reject);
      p.server.listen(0, host, () => resolve());
    });
    return p;
  }

  /** `http://host:port`, as proxy.httpProxy. */
  get url(): string {
    return `http://${this.host}:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private note(line: string, from: string | undefined): void {
    this.requests.push({ line, from: from ?? '?', at: Date.now() });
  }
}
