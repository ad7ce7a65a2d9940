import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { ManagementUserDataProps, renderManagementUserData } from '../../lib/management-vm';
import { DEFAULT_MANAGEMENT_TOOLS } from '../../lib/config/downloads';

/** Fake cdktf tokens, as they appear in strings before synthesis. */
export const TOKENS = {
  floatingIp: '${TfToken[TOKEN.1]}',
  caCert: '${TfToken[TOKEN.2]}',
  caKey: '${TfToken[TOKEN.3]}',
  fixedIp: '${TfToken[TOKEN.5]}',
} as const;

export const VERSIONS = { ...DEFAULT_MANAGEMENT_TOOLS, clusterApi: 'v1.12.10', capo: 'v0.14.7', caaph: 'v0.6.4' };

export function baseProps(overrides: Partial<ManagementUserDataProps> = {}): ManagementUserDataProps {
  return {
    kindClusterName: 'capi-mgmt',
    apiServerAddress: TOKENS.floatingIp,
    extraCertSans: [TOKENS.fixedIp],
    caCertificatePemBase64: TOKENS.caCert,
    caPrivateKeyPemBase64: TOKENS.caKey,
    managementCidr: '10.0.0.0/24',
    versions: VERSIONS,
    ...overrides,
  };
}

export interface WriteFileEntry {
  path: string;
  content: string;
  encoding?: string;
  owner: string;
  permissions: string;
}

export interface CloudConfig {
  write_files: WriteFileEntry[];
  runcmd: string[][];
  apt?: { http_proxy?: string; https_proxy?: string };
  users?: unknown[];
  ssh_authorized_keys?: string[];
  [key: string]: unknown;
}

export function parseUserData(text: string): CloudConfig {
  expect(text.startsWith('#cloud-config\n')).toBe(true);
  return parse(text) as CloudConfig;
}

export function render(overrides: Partial<ManagementUserDataProps> = {}): { text: string; doc: CloudConfig } {
  const text = renderManagementUserData(baseProps(overrides));
  return { text, doc: parseUserData(text) };
}

export function file(doc: CloudConfig, filePath: string): WriteFileEntry {
  const f = doc.write_files.find((w) => w.path === filePath);
  if (!f) throw new Error(`no write_files entry for ${filePath}; have ${doc.write_files.map((w) => w.path).join(', ')}`);
  return f;
}

/** The decoded content of a write_files entry. */
export function fileText(doc: CloudConfig, filePath: string): string {
  const f = file(doc, filePath);
  return f.encoding === 'b64' ? Buffer.from(f.content, 'base64').toString('utf8') : f.content;
}

/** Plausible values Terraform would substitute for the fake tokens. */
export function substituteTokens(text: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return text
    .split(TOKENS.floatingIp).join('203.0.113.10')
    .split(TOKENS.fixedIp).join('10.0.0.15')
    .split(TOKENS.caCert).join(b64('-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n'))
    .split(TOKENS.caKey).join(b64('-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\n-----END RSA PRIVATE KEY-----\n'));
}

/**
 * Whether an external tool is installed. When it is not: outside CI the test is skipped with a loud
 * warning; under CI (CI=true) the caller's test fails.
 */
export function toolAvailable(tool: string, aptPackage: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
  if (!found && process.env.CI !== 'true') {
    // eslint-disable-next-line no-console
    console.warn(`\n\n*** WARNING: '${tool}' is not installed; SKIPPING the tests that need it. Install it with: apt-get install -y ${aptPackage} ***\n`);
  }
  return found;
}

/** `it` when the tool is available or CI requires it (then a missing tool fails the test). */
export function itWithTool(tool: string, aptPackage: string): jest.It {
  return toolAvailable(tool, aptPackage) || process.env.CI === 'true' ? it : it.skip;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...opts.env }, cwd: opts.cwd, timeout: 120_000 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

