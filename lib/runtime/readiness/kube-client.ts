/**
 * A minimal Kubernetes API client over the runtime's HTTP client: client-certificate (or bearer
 * token) authentication, the cluster CA as the only trust anchor, one overall timeout per request, JSON
 * in and out.
 * Transport failures are returned as values with a short reason, never thrown.
 */
import { HttpTransportError, httpRequest } from '../http';
import type { KubeResponse } from './checks';

export interface KubeClientOptions {
  /** API server URL, e.g. `https://203.0.113.10:6443` (a path prefix is kept). */
  readonly server: string;
  readonly caPem: string;
  /** Client certificate and key (PEM); or `token`. */
  readonly certPem?: string;
  readonly keyPem?: string;
  /** Bearer token (kubeconfigs of existing management clusters may use one). @default none */
  readonly token?: string;
  /** Overall limit per request (connect + TLS + response). @default 10000 */
  readonly timeoutMs?: number;
}

/** Responses larger than this are cut off and reported as an error (CRDs with big schemas stay far below). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export class KubeClient {
  private readonly base: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: KubeClientOptions) {
    this.base = new URL(options.server);
    if (this.base.protocol !== 'https:') throw new Error(`server must be an https:// URL, got '${options.server}'`);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  get(path: string): Promise<KubeResponse> {
    return this.request('GET', path);
  }

  /** Any verb; `body` is sent as JSON (or as merge-patch JSON for PATCH). Transport failures come back as values. */
  async request(method: string, path: string, body?: unknown): Promise<KubeResponse> {
    const url = new URL(this.base.pathname.replace(/\/+$/, '') + path, this.base);
    try {
      const res = await httpRequest({
        method,
        url: url.toString(),
        headers: { 'user-agent': 'capi-openstack-cdktf-readiness', ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) },
        body,
        contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        timeoutMs: this.timeoutMs,
        caPem: this.options.caPem,
        certPem: this.options.certPem,
        keyPem: this.options.keyPem,
        maxResponseBytes: MAX_BODY_BYTES,
      });
      return { kind: 'response', status: res.status, body: parseBody(res.text) };
    } catch (e) {
      if (!(e instanceof HttpTransportError)) throw e;
      const r = e.reason;
      if (r.kind === 'timeout') return { kind: 'error', reason: `timeout after ${Math.round(this.timeoutMs / 100) / 10}s` };
      if (r.kind === 'too large') return { kind: 'error', reason: `response larger than ${r.bytes} bytes` };
      return { kind: 'error', reason: describeError(r.error) };
    }
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // e.g. `ok` from /readyz
  }
}

/** Short, secret-free reason for a transport error: the code first, plus a hint for TLS failures. */
export function describeError(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  const message = (err.message ?? String(err)).replace(/\s+/g, ' ').trim();
  if (code.startsWith('ERR_SSL_') || /alert/i.test(message)) {
    const alert = /alert ([a-z0-9 ]+)/i.exec(message)?.[1]?.trim();
    const hint = /unknown ca|bad certificate|certificate required|certificate unknown|access denied/i.test(message)
      ? 'the server rejected the client certificate'
      : 'handshake failed';
    return `TLS error: ${hint}${alert ? ` (${alert})` : ''}${code ? ` [${code}]` : ''}`;
  }
  if (/CERT|SIGNATURE|SELF_SIGNED|ALTNAME/.test(code)) {
    return `TLS error: the server certificate is not valid for this CA/address (${code}: ${message})`;
  }
  // A TLS 1.3 server that refuses the client certificate may just drop the connection.
  if (code === 'ECONNRESET') return 'ECONNRESET (connection reset: the server may have rejected the client certificate)';
  return code || message;
}
