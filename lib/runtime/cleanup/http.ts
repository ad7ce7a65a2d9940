/**
 * The smallest HTTP(S) client the cleanup needs: one request, a JSON or empty body, a bounded
 * time, an optional private CA. Node's own http/https only, so the script runs with nothing
 * installed but Node.
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
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** The request never got an HTTP answer (DNS, connect, TLS, timeout). The message names the URL, never headers. */
export class HttpTransportError extends Error {}

/** Responses above this size are cut off with an error: no API listing of one project gets near it. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.reject(new HttpTransportError(`not a URL: ${req.url}`));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new HttpTransportError(`${req.url}: only http:// and https:// URLs are supported`));
  }
  const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  const transport = url.protocol === 'https:' ? https : http;
  const tls = url.protocol === 'https:' ? { ...(req.caPem ? { ca: req.caPem } : {}), ...(req.insecure ? { rejectUnauthorized: false } : {}) } : {};
  const options: https.RequestOptions = { method: req.method, headers, ...tls };
  const what = `${req.method} ${displayUrl(url)}`;
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(new HttpTransportError(`${what}: ${message}`));
    };
    const request = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) fail(`response larger than ${MAX_RESPONSE_BYTES} bytes`);
        else chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (e) => fail(e.message));
    });
    const timer = setTimeout(() => fail(`no complete answer within ${Math.round(req.timeoutMs / 1000)} s`), req.timeoutMs);
    request.on('error', (e) => fail(e.message));
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
