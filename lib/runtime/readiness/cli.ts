/**
 * The command-line side of the readiness gate (used by bin/wait-for-management.ts): reads and
 * validates the environment, runs the wait, maps the outcome to an exit code. Never prints PEM text.
 */
import { X509Certificate, createPrivateKey } from 'crypto';
import { CliConfigError, Env, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK, positive, required, settingsOrReport, unescapePem } from '../env-config';
import { ReadinessTimeoutError, waitForManagement } from './wait';

export interface CliConfig {
  readonly server: string;
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

export { CliConfigError, EXIT_BAD_CONFIG } from '../env-config';
export const EXIT_READY = EXIT_OK;
export const EXIT_NOT_READY = EXIT_FAILED;

export function readCliConfig(env: Env): CliConfig {
  const server = required(env, 'KUBE_SERVER', 'the API server URL, e.g. https://203.0.113.10:6443').trim();
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliConfigError(`KUBE_SERVER is not a URL: '${server}' (expected e.g. https://203.0.113.10:6443)`);
  }
  if (url.protocol !== 'https:') throw new CliConfigError(`KUBE_SERVER must start with https:// (got '${server}')`);

  const caPem = pem(env, 'KUBE_CA_PEM', 'the cluster CA certificate');
  const certPem = pem(env, 'KUBE_CLIENT_CERT_PEM', 'the client certificate');
  const keyPem = pem(env, 'KUBE_CLIENT_KEY_PEM', 'the client private key');
  const ca = parse('KUBE_CA_PEM', 'an X.509 certificate', () => new X509Certificate(caPem));
  const cert = parse('KUBE_CLIENT_CERT_PEM', 'an X.509 certificate', () => new X509Certificate(certPem));
  const key = parse('KUBE_CLIENT_KEY_PEM', 'a private key', () => createPrivateKey(keyPem));
  if (!ca.ca) throw new CliConfigError(`KUBE_CA_PEM is not a CA certificate (subject ${ca.subject.replace(/\n/g, ', ')})`);
  if (!cert.checkPrivateKey(key)) throw new CliConfigError('KUBE_CLIENT_KEY_PEM does not belong to the certificate in KUBE_CLIENT_CERT_PEM');

  return {
    server,
    caPem,
    certPem,
    keyPem,
    timeoutMs: positive(env, 'READY_TIMEOUT_MINUTES', 20) * 60_000,
    // a poll is a handful of GETs; every second spent between the cluster being ready and the
    // gate seeing it is on the operator's clock
    intervalMs: positive(env, 'READY_INTERVAL_SECONDS', 2) * 1000,
  };
}

/** Runs the gate; returns the process exit code. `out` gets progress lines, `err` the failure report. */
export async function runCli(env: Env, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const config = settingsOrReport('wait-for-management', () => readCliConfig(env), err);
  if (!config) return EXIT_BAD_CONFIG;
  try {
    await waitForManagement({ ...config, log: out });
    return EXIT_READY;
  } catch (e) {
    err(e instanceof ReadinessTimeoutError ? e.message : `wait-for-management: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_NOT_READY;
  }
}

/** PEM text; tolerates literal `\n` escapes (e.g. a value pasted from JSON). */
function pem(env: Env, name: string, what: string): string {
  const value = unescapePem(required(env, name, `${what} as PEM text`));
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(value)) throw new CliConfigError(`${name} is not PEM text (no '-----BEGIN ...-----' line; expected ${what})`);
  return value;
}

function parse<T>(name: string, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    // Library messages describe the format problem, never the content.
    throw new CliConfigError(`${name} does not hold ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

