/**
 * The few S3 calls the state commands make (bucket check and creation, reading and removing a lock
 * object, reading a state object's size, the lock probe's conditional writes), signed with SigV4. Credentials are the ones Terraform's
 * S3 backend would use from the environment: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
 * (AWS_SESSION_TOKEN), else the profile AWS_PROFILE (default "default") of the shared credentials file.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from '../../config/bounded-file';
import { httpRequest, HttpResponse } from '../http';
import { EMPTY_SHA256, S3Credentials, sha256Hex, signS3Request } from './sigv4';

export class S3Error extends Error {}

export interface S3Target {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
}

/** Where the credentials came from, for messages (never the secret). */
export interface FoundCredentials {
  readonly credentials: S3Credentials;
  readonly source: string;
}

export function findS3Credentials(env: NodeJS.ProcessEnv): FoundCredentials | undefined {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined }, source: 'AWS_ACCESS_KEY_ID' };
  }
  const file = env.AWS_SHARED_CREDENTIALS_FILE || path.join(env.HOME || os.homedir(), '.aws', 'credentials');
  const profile = env.AWS_PROFILE || 'default';
  if (!fs.existsSync(file)) return undefined;
  // the loader's guards: a FIFO or /dev/zero in AWS_SHARED_CREDENTIALS_FILE is named, not read
  const read = readBoundedFile(file, 'AWS credentials file', MAX_SETTINGS_FILE_BYTES);
  if ('problem' in read) throw new S3Error(read.problem);
  const values = iniSection(read.bytes.toString('utf8'), profile);
  if (!values.aws_access_key_id || !values.aws_secret_access_key) return undefined;
  return { credentials: { accessKeyId: values.aws_access_key_id, secretAccessKey: values.aws_secret_access_key, sessionToken: values.aws_session_token }, source: `profile ${profile} of ${file}` };
}

function iniSection(text: string, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) inSection = header[1] === name;
    else if (inSection && /^[A-Za-z_]+\s*=/.test(line)) {
      const i = line.indexOf('=');
      out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
  }
  return out;
}

export class S3Client {
  constructor(
    private readonly target: S3Target,
    private readonly credentials: S3Credentials,
    private readonly timeoutMs = 30_000,
  ) {}

  /** true when the bucket exists and is ours to read; false when it does not exist. */
  async bucketExists(): Promise<boolean> {
    const res = await this.send('HEAD', '');
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw this.error('HEAD', '', res);
  }

  async createBucket(): Promise<void> {
    const res = await this.send('PUT', '', { 'content-length': '0' });
    if (res.status !== 200) throw this.error('PUT', '', res);
  }

  /** The object's text, or undefined when there is none. */
  async getText(key: string): Promise<string | undefined> {
    const res = await this.send('GET', key);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.error('GET', key, res);
    return res.text;
  }

  /** Size and modification time, or undefined when there is no such object. */
  async head(key: string): Promise<{ bytes: number; modified: string } | undefined> {
    const res = await this.send('HEAD', key);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.error('HEAD', key, res);
    return { bytes: Number(res.headers['content-length'] ?? 0), modified: String(res.headers['last-modified'] ?? '') };
  }

  /**
   * Writes `content` (as JSON) only if no object has the key (`If-None-Match: *`, as Terraform's
   * lock file does): true when this call created it, false when the store refused (412/409).
   */
  async putIfAbsent(key: string, content: object): Promise<boolean> {
    const res = await this.send('PUT', key, { 'if-none-match': '*' }, content);
    if (res.status === 200 || res.status === 201) return true;
    if (res.status === 412 || res.status === 409) return false;
    throw this.error('PUT', key, res);
  }

  /** Writes `content` as JSON (overwriting). */
  async putJson(key: string, content: object): Promise<void> {
    const res = await this.send('PUT', key, {}, content);
    if (res.status !== 200 && res.status !== 201) throw this.error('PUT', key, res);
  }

  /** Keys under `prefix` (ListObjectsV2, every page), sorted. */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      // an empty prefix= is signed differently by some stores: left out
      const query = new URLSearchParams({ 'list-type': '2', ...(prefix ? { prefix } : {}), ...(token ? { 'continuation-token': token } : {}) });
      const res = await this.send('GET', '', {}, undefined, query);
      if (res.status !== 200) throw this.error('GET', `?prefix=${prefix}`, res);
      for (const m of res.text.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(unescapeXml(m[1]));
      token = /<IsTruncated>true<\/IsTruncated>/.test(res.text) ? /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(res.text)?.[1] : undefined;
    } while (token);
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    const res = await this.send('DELETE', key);
    if (res.status !== 204 && res.status !== 200) throw this.error('DELETE', key, res);
  }

  private url(key: string): URL {
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    return new URL(`${this.target.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(this.target.bucket)}${key ? `/${encoded}` : ''}`);
  }

  /** `body` goes out as JSON (the one body the HTTP client sends), signed with its SHA-256. */
  private send(method: string, key: string, extra: Record<string, string> = {}, body?: object, query?: URLSearchParams): Promise<HttpResponse> {
    const url = this.url(key);
    if (query) url.search = query.toString();
    const payloadSha256 = body === undefined ? EMPTY_SHA256 : sha256Hex(JSON.stringify(body));
    const headers = signS3Request({ method, url, region: this.target.region, credentials: this.credentials, payloadSha256, now: new Date(), headers: extra });
    return httpRequest({ method, url: url.toString(), headers: { ...headers, accept: '*/*' }, body, timeoutMs: this.timeoutMs, maxResponseBytes: 16 * 1024 * 1024 });
  }

  private error(method: string, key: string, res: HttpResponse): S3Error {
    const code = /<Code>([^<]{1,80})<\/Code>/.exec(res.text)?.[1];
    const where = `${this.target.bucket}${key ? `/${key}` : ''} at ${this.target.endpoint}`;
    const hint = res.status === 403 ? ' (the credentials are refused or may not use this bucket)' : '';
    return new S3Error(`${method} ${where}: HTTP ${res.status}${code ? ` ${code}` : ''}${hint}`);
  }
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}
