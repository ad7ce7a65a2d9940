/**
 * The one HTTP(S) client of the runtime (leftovers cleanup, readiness check, CLI): one request, a
 * JSON or empty body, a bounded time and size, an optional private CA and client certificate, one
 * connection per request (nothing keeps the process alive). Node's own http/https only, so the
 * scripts Terraform runs need nothing installed but Node.
 */
import * as http from 'http';
import * as https from 'https';

export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON when defined. */
  readonly body?: unknown;
  /** Whole request, connect to last byte. */
  readonly timeoutMs: number;
  /** PEM of the CA(s) the server certificate must chain to. @default the system trust store */
  readonly caPem?: string;
  /** Accept any server certificate (clouds.yaml `verify: false`). @default false */
  readonly insecure?: boolean;
  /** Client certificate and key (PEM) for TLS client authentication. @default none */
  readonly certPem?: string;
  readonly keyPem?: string;
  /** Content type of the body. @default 'application/json' */
  readonly contentType?: string;
  /** Cut-off for the response. @default 64 MiB */
  readonly maxResponseBytes?: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body as received (what a checksum is taken of). */
  readonly bytes: Buffer;
}

/** The request never got an HTTP answer (DNS, connect, TLS, timeout, size). The message names the URL, never headers. */
export class HttpTransportError extends Error {
  constructor(
    message: string,
    /** What failed: the socket or TLS error, a timeout, an oversized response. */
    public readonly reason: { readonly kind: 'error'; readonly error: NodeJS.ErrnoException } | { readonly kind: 'timeout' } | { readonly kind: 'too large'; readonly bytes: number },
  ) {
    super(message);
  }
}

/** Responses above this size are cut off with an error: no API listing of one project gets near it. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.reject(new HttpTransportError(`not a URL: ${req.url}`, { kind: 'error', error: new Error('not a URL') }));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new HttpTransportError(`${req.url}: only http:// and https:// URLs are supported`, { kind: 'error', error: new Error('unsupported protocol') }));
  }
  const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (body) {
    headers['content-type'] = req.contentType ?? 'application/json';
    headers['content-length'] = String(body.length);
  }
  const transport = url.protocol === 'https:' ? https : http;
  const tls =
    url.protocol === 'https:'
      ? { ...(req.caPem ? { ca: req.caPem } : {}), ...(req.insecure ? { rejectUnauthorized: false } : {}), ...(req.certPem ? { cert: req.certPem, key: req.keyPem } : {}) }
      : {};
  const options: https.RequestOptions = { method: req.method, headers, agent: false, ...tls };
  const maxBytes = req.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const what = `${req.method} ${displayUrl(url)}`;
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const fail = (message: string, reason: HttpTransportError['reason']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(new HttpTransportError(`${what}: ${message}`, reason));
    };
    const request = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(`response larger than ${maxBytes} bytes`, { kind: 'too large', bytes: maxBytes });
        else chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: bytes.toString('utf8'), bytes });
      });
      res.on('error', (e) => fail(e.message, { kind: 'error', error: e }));
    });
    const timer = setTimeout(() => fail(`no complete answer within ${Math.round(req.timeoutMs / 1000)} s`, { kind: 'timeout' }), req.timeoutMs);
    request.on('error', (e) => fail(e.message, { kind: 'error', error: e }));
    request.end(body);
  });
}

/** The URL for messages: user info dropped (query values are ids and names). */
function displayUrl(url: URL): string {
  const copy = new URL(url.toString());
  copy.username = '';
  copy.password = '';
  return copy.toString();
}
