/** Reading credentials out of a kubeconfig, fetching a Secret with them, and writing kubeconfig files safely. */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { MAX_KUBECONFIG_BYTES, readBoundedFile } from '../../../config/bounded-file';
import { MAX_CA_FILE_BYTES } from '../../../config/ca-file';
import { HttpTransportError, httpRequest } from '../../http';
import { CliError } from '../errors';

/** The text of a kubeconfig file, read with the loader's guards (a regular file of bounded size: a FIFO or /dev/zero is named, not read). */
export function readKubeconfigFile(abs: string): string {
  const read = readBoundedFile(abs, 'kubeconfig file', MAX_KUBECONFIG_BYTES);
  if ('problem' in read) throw new CliError(read.problem);
  return read.bytes.toString('utf8');
}

export interface KubeCredentials {
  readonly server: string;
  readonly caPem: string;
  /** Client certificate authentication (the management stack's admin kubeconfig). */
  readonly certPem?: string;
  readonly keyPem?: string;
  /** Bearer token authentication (kubeconfigs of existing management clusters may use it). */
  readonly token?: string;
}

type Named<T> = { name?: string } & T;

interface KubeconfigDoc {
  'current-context'?: string;
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
  clusters?: Named<{ cluster?: { server?: string; 'certificate-authority-data'?: string; 'certificate-authority'?: string } }>[];
  users?: Named<{
    user?: { 'client-certificate-data'?: string; 'client-key-data'?: string; 'client-certificate'?: string; 'client-key'?: string; token?: string; exec?: unknown };
  }>[];
}

/**
 * Credentials of a context (default: the current one): client certificate or bearer token, inline
 * (`*-data`) or as files relative to `baseDir`. Exec plugins and auth providers are not supported.
 */
export function credentialsFromKubeconfig(text: string, what: string, options: { context?: string; baseDir?: string } = {}): KubeCredentials {
  let doc: KubeconfigDoc;
  try {
    // uniqueKeys: false: the parser's duplicate check compares every key with every other
    doc = (parse(text, { uniqueKeys: false }) as KubeconfigDoc | null) ?? {};
  } catch {
    throw new CliError(`${what} is not valid YAML`);
  }
  const ctxName = options.context ?? doc['current-context'] ?? doc.contexts?.[0]?.name;
  const ctx = doc.contexts?.find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new CliError(`${what} has no context "${ctxName ?? ''}"`);
  const cluster = doc.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === ctx.user)?.user;
  const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
  const file = (p: string) => {
    const abs = path.resolve(options.baseDir ?? '.', p);
    if (!fs.existsSync(abs)) throw new CliError(`${what} refers to ${abs}, which does not exist`);
    const read = readBoundedFile(abs, 'PEM file', MAX_CA_FILE_BYTES);
    if ('problem' in read) throw new CliError(`${what} refers to ${abs}: ${read.problem}`);
    return read.bytes.toString('utf8');
  };
  const pick = (data: string | undefined, filePath: string | undefined) => (data ? b64(data) : filePath ? file(filePath) : undefined);
  const caPem = pick(cluster?.['certificate-authority-data'], cluster?.['certificate-authority']);
  const certPem = pick(user?.['client-certificate-data'], user?.['client-certificate']);
  const keyPem = pick(user?.['client-key-data'], user?.['client-key']);
  const token = user?.token;
  const missing = [
    !cluster?.server && 'the cluster server',
    !caPem && 'certificate-authority(-data)',
    !token && !(certPem && keyPem) && (user?.exec ? 'a client certificate or token (exec plugins are not supported)' : 'a client certificate and key or a token'),
  ].filter(Boolean);
  if (missing.length > 0) throw new CliError(`${what} lacks ${missing.join(', ')} in context "${ctxName}"`);
  return { server: cluster!.server!, caPem: caPem!, ...(certPem && keyPem ? { certPem, keyPem } : {}), ...(token ? { token } : {}) };
}

/** API server of the current context, for messages (no key material). */
export function serverOfKubeconfig(text: string): string | undefined {
  try {
    const doc = parse(text) as { 'current-context'?: string; contexts?: Named<{ context?: { cluster?: string } }>[]; clusters?: Named<{ cluster?: { server?: string } }>[] };
    const ctx = doc.contexts?.find((c) => c.name === doc['current-context'])?.context ?? doc.contexts?.[0]?.context;
    return (doc.clusters?.find((c) => c.name === ctx?.cluster) ?? doc.clusters?.[0])?.cluster?.server;
  } catch {
    return undefined;
  }
}

/**
 * Reads key `key` of Secret `namespace/name` through the Kubernetes REST API with client-certificate
 * authentication and the cluster CA as the only trust anchor.
 */
export async function fetchSecretValue(creds: KubeCredentials, namespace: string, name: string, key: string, timeoutMs = 20_000): Promise<string> {
  const base = new URL(creds.server);
  if (base.protocol !== 'https:') throw new CliError(`management API ${creds.server} is not https`);
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`, base);
  const where = `secret ${namespace}/${name} on the management cluster (${creds.server})`;
  let res;
  try {
    res = await httpRequest({
      method: 'GET',
      url: url.toString(),
      headers: { 'user-agent': 'capi-openstack-cli', ...(creds.token ? { authorization: `Bearer ${creds.token}` } : {}) },
      timeoutMs,
      caPem: creds.caPem,
      certPem: creds.certPem,
      keyPem: creds.keyPem,
    });
  } catch (e) {
    if (!(e instanceof HttpTransportError)) throw e;
    throw new CliError(unreachable(e, creds.server, where, timeoutMs));
  }
  let body: { data?: Record<string, string>; message?: string } = {};
  try {
    body = JSON.parse(res.text);
  } catch {
    // keep {}: a non-JSON answer is reported by status below
  }
  const status = res.status;
  if (status === 404) throw new CliError(`${where} does not exist (yet): the cluster is still being created, or the stack names another secret`);
  if (status === 401 || status === 403) throw new CliError(`the management cluster refused to read ${where}: HTTP ${status}${body.message ? ` ${body.message}` : ''}`);
  if (status !== 200) throw new CliError(`reading ${where}: HTTP ${status}${body.message ? ` ${body.message}` : ''}`);
  const value = body.data?.[key];
  if (!value) throw new CliError(`${where} has no key "${key}" (keys: ${Object.keys(body.data ?? {}).join(', ') || 'none'})`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/** Why the management cluster did not answer, for people: a hint where reachability is the likely cause. */
function unreachable(e: HttpTransportError, server: string, where: string, timeoutMs: number): string {
  const r = e.reason;
  if (r.kind === 'timeout') return `reading ${where}: no answer within ${Math.round(timeoutMs / 1000)}s (is this machine in management.apiAllowedCidrs?)`;
  if (r.kind === 'too large') return `reading ${where}: ${e.message}`;
  const code = r.error.code;
  const reason = code && /CERT|SELF_SIGNED|ALTNAME|SIGNATURE/.test(code) ? `TLS: the server certificate does not match the management CA (${code})` : code ?? r.error.message;
  return `cannot reach the management cluster at ${server}: ${reason}${code === 'ECONNREFUSED' || code === 'ETIMEDOUT' ? ' (is this machine in management.apiAllowedCidrs?)' : ''}`;
}

/** Writes a kubeconfig with mode 0600 (also when replacing an existing file), via a temporary file and rename. */
export function writePrivateFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
    fs.chmodSync(tmp, 0o600); // the umask may have removed bits, never added: make it exact
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
  }
}
