/**
 * bin/cleanup-cluster-leftovers: input validation (pure) and the compiled script run as a real
 * process against the local fake API: exit codes, the one failure line, no secret in any output.
 */
import { execFile, execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CSI_DEFAULT_CLUSTER, readCliConfig } from '../../../lib/runtime/cleanup/cli';
import { makeTestPki, TestPki } from '../readiness/support/pki';
import { CREDENTIAL_ID, CREDENTIAL_SECRET, FakeOpenStack, USER } from './support/fake-openstack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let outDir: string;
let script: string;
let pki: TestPki;
let fake: FakeOpenStack | undefined;

beforeAll(() => {
  pki = makeTestPki();
  // Compile only the script and what it imports, with the project's compiler settings.
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cleanup-bin-'));
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '--outDir', outDir, '--rootDir', ROOT, '--target', 'ES2022', '--module', 'commonjs',
      '--strict', '--noUnusedLocals', '--noUnusedParameters', '--noImplicitReturns', '--esModuleInterop', '--skipLibCheck', '--types', 'node',
      path.join(ROOT, 'bin', 'cleanup-cluster-leftovers.ts')],
    { cwd: ROOT, stdio: 'pipe' },
  );
  script = path.join(outDir, 'bin', 'cleanup-cluster-leftovers.js');
}, 120_000);
afterAll(() => {
  pki.cleanup();
  fs.rmSync(outDir, { recursive: true, force: true });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const base = {
  CAPI_CLEANUP_AUTH_URL: 'https://keystone.example.com:5000/v3',
  CAPI_CLEANUP_APPLICATION_CREDENTIAL_ID: CREDENTIAL_ID,
  CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET: CREDENTIAL_SECRET,
  CAPI_CLEANUP_CLUSTER_NAME: 'capi-prod-web',
};

function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', NODE_PATH: path.join(ROOT, 'node_modules'), ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('readCliConfig', () => {
  test('defaults', () => {
    const c = readCliConfig(base);
    expect(c).toMatchObject({
      authUrl: base.CAPI_CLEANUP_AUTH_URL,
      auth: { type: 'application_credential', id: CREDENTIAL_ID, secret: CREDENTIAL_SECRET },
      occmClusterName: 'capi-prod-web',
      csiClusterName: 'capi-prod-web',
      endpointInterface: 'public',
      deleteVolumes: true,
      dryRun: false,
      timeoutMs: 20 * 60_000,
      pollIntervalMs: 5000,
    });
    expect(c.region).toBeUndefined();
    expect(c.caPem).toBeUndefined();
    expect(c.machineNetworkName).toBeUndefined();
  });

  test('every setting; empty values count as unset (what Terraform passes for unset inputs)', () => {
    const c = readCliConfig({
      ...base,
      CAPI_CLEANUP_REGION: 'RegionTwo',
      CAPI_CLEANUP_INTERFACE: 'internalURL',
      CAPI_CLEANUP_CA_PEM: pki.ca.certPem.replace(/\n/g, '\\n'),
      CAPI_CLEANUP_CSI_CLUSTER_NAME: '',
      CAPI_CLEANUP_MACHINE_NETWORK: 'k8s-clusterapi-cluster-ns-web',
      CAPI_CLEANUP_VOLUMES: 'keep',
      CAPI_CLEANUP_TIMEOUT_MINUTES: '1.5',
      CAPI_CLEANUP_POLL_SECONDS: '2',
      CAPI_CLEANUP_DRY_RUN: '1',
    });
    expect(c).toMatchObject({
      region: 'RegionTwo',
      endpointInterface: 'internal',
      caPem: pki.ca.certPem,
      csiClusterName: 'capi-prod-web',
      machineNetworkName: 'k8s-clusterapi-cluster-ns-web',
      deleteVolumes: false,
      dryRun: true,
      timeoutMs: 90_000,
      pollIntervalMs: 2000,
    });
  });

  test.each([
    [{ CAPI_CLEANUP_AUTH_URL: '' }, /CAPI_CLEANUP_CLOUD is not set \(expected a clouds.yaml entry\), nor is CAPI_CLEANUP_AUTH_URL/],
    [{ CAPI_CLEANUP_CLOUD: 'mycloud' }, /set CAPI_CLEANUP_CLOUD \(a clouds.yaml entry\) or CAPI_CLEANUP_AUTH_URL with an application credential, not both/],
    [{ CAPI_CLEANUP_AUTH_URL: '', CAPI_CLEANUP_CLOUD: 'mycloud', CAPI_CLEANUP_CLOUDS_FILE: '/nonexistent/clouds.yaml' }, /CAPI_CLEANUP_CLOUD: no cloud "mycloud" in \/nonexistent\/clouds.yaml/],
    [{ CAPI_CLEANUP_AUTH_URL: 'keystone:5000' }, /CAPI_CLEANUP_AUTH_URL is not an http\(s\) URL: 'keystone:5000'/],
    [{ CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET: ' ' }, /CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET is not set/],
    [{ CAPI_CLEANUP_CLUSTER_NAME: '' }, /CAPI_CLEANUP_CLUSTER_NAME is not set \(expected the name OCCM and Cinder CSI mark/],
    [{ CAPI_CLEANUP_CLUSTER_NAME: 'a b' }, /CAPI_CLEANUP_CLUSTER_NAME must be a name of letters/],
    [{ CAPI_CLEANUP_CLUSTER_NAME: CSI_DEFAULT_CLUSTER }, /the Cinder CSI cluster name is 'kubernetes', Cinder CSI's default/],
    [{ CAPI_CLEANUP_CSI_CLUSTER_NAME: CSI_DEFAULT_CLUSTER }, /or set CAPI_CLEANUP_VOLUMES=keep/],
    [{ CAPI_CLEANUP_VOLUMES: 'purge' }, /CAPI_CLEANUP_VOLUMES must be delete or keep \(got 'purge'\)/],
    [{ CAPI_CLEANUP_INTERFACE: 'private' }, /CAPI_CLEANUP_INTERFACE must be public, internal or admin/],
    [{ CAPI_CLEANUP_TIMEOUT_MINUTES: '0' }, /CAPI_CLEANUP_TIMEOUT_MINUTES must be a positive number \(got '0'\)/],
    [{ CAPI_CLEANUP_DRY_RUN: 'yes' }, /CAPI_CLEANUP_DRY_RUN must be 0 or 1/],
    [{ CAPI_CLEANUP_CA_PEM: 'not a pem' }, /CAPI_CLEANUP_CA_PEM holds no PEM certificate/],
    [{ CAPI_CLEANUP_CA_FILE: '/nonexistent/ca.pem' }, /CAPI_CLEANUP_CA_FILE cannot be read/],
  ])('%j is refused', (override, message) => {
    expect(() => readCliConfig({ ...base, ...override })).toThrow(message);
  });

  test('the Cinder CSI default name is accepted when volumes are kept (OCCM names are still specific)', () => {
    expect(readCliConfig({ ...base, CAPI_CLEANUP_CSI_CLUSTER_NAME: CSI_DEFAULT_CLUSTER, CAPI_CLEANUP_VOLUMES: 'keep' }).deleteVolumes).toBe(false);
  });

  test('a clouds.yaml entry: its region, interface and CA unless the environment says otherwise', () => {
    const file = path.join(pki.dir, 'clouds.yaml');
    fs.copyFileSync(path.join(pki.dir, 'ca.crt'), path.join(pki.dir, 'cloud-ca.pem'));
    fs.writeFileSync(
      file,
      `clouds:\n  mycloud:\n    auth:\n      auth_url: https://keystone.example.com:5000\n      username: operator\n      password: pw-123456\n      project_name: proj\n` +
        `      user_domain_name: Users\n      project_domain_id: default\n    region_name: RegionTwo\n    interface: internal\n    cacert: cloud-ca.pem\n`,
    );
    const env = { CAPI_CLEANUP_CLOUD: 'mycloud', CAPI_CLEANUP_CLOUDS_FILE: file, CAPI_CLEANUP_CLUSTER_NAME: 'capi-prod-web' };
    expect(readCliConfig(env)).toMatchObject({
      authUrl: 'https://keystone.example.com:5000',
      auth: { type: 'password', user: { name: 'operator', domainName: 'Users' }, password: 'pw-123456', project: { name: 'proj', domainId: 'default' } },
      region: 'RegionTwo',
      endpointInterface: 'internal',
      caPem: pki.ca.certPem,
    });
    expect(readCliConfig({ ...env, CAPI_CLEANUP_REGION: 'RegionOne', CAPI_CLEANUP_INTERFACE: 'public', CAPI_CLEANUP_CA_PEM: pki.otherCa.certPem })).toMatchObject({
      region: 'RegionOne',
      endpointInterface: 'public',
      caPem: pki.otherCa.certPem.trim(),
    });
  });

  test('CA from a file', () => {
    const file = path.join(pki.dir, 'ca.crt');
    expect(readCliConfig({ ...base, CAPI_CLEANUP_CA_FILE: file }).caPem).toBe(pki.ca.certPem);
  });
});

describe('the compiled script', () => {
  test('exit 2 and one line on bad input, naming the variable', async () => {
    const r = await run({ ...base, CAPI_CLEANUP_CLUSTER_NAME: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^cleanup-cluster-leftovers: CAPI_CLEANUP_CLUSTER_NAME is not set/);
  });

  test('exit 0 after deleting the cluster\'s volume; progress on stdout, never the secret', async () => {
    fake = await FakeOpenStack.start({ tls: { keyPem: pki.server.keyPem, certPem: pki.server.certPem } });
    fake.volumes.push({ id: 'v1', name: 'pvc-1', size: 1, status: 'available', metadata: { 'cinder.csi.openstack.org/cluster': 'capi-prod-web' } });
    fake.volumes.push({ id: 'v2', name: 'pvc-2', size: 1, status: 'available', metadata: { 'cinder.csi.openstack.org/cluster': 'capi-prod-api' } });
    const r = await run({
      ...base,
      CAPI_CLEANUP_AUTH_URL: fake.authUrl,
      CAPI_CLEANUP_REGION: 'RegionOne',
      CAPI_CLEANUP_CA_FILE: path.join(pki.dir, 'ca.crt'),
      CAPI_CLEANUP_POLL_SECONDS: '0.05',
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(fake.volumes.map((v) => v.id)).toEqual(['v2']);
    expect(r.stdout).toContain('cleanup: volumes: deleting 1: v1 (pvc-1, 1 GiB)');
    expect(r.stdout).toMatch(/cleanup: done in \d+ s: deleted 0 load balancer\(s\), 0 floating IP\(s\), 0 security group\(s\), 0 snapshot\(s\), 1 volume\(s\)\n$/);
    expect(r.stdout + r.stderr).not.toContain(CREDENTIAL_SECRET);
  });

  test('exit 1 with one line when the cleanup cannot finish', async () => {
    fake = await FakeOpenStack.start();
    fake.volumes.push({ id: 'v1', name: 'pvc-1', size: 1, status: 'in-use', attachments: [{ server_id: 'srv-9' }], metadata: { 'cinder.csi.openstack.org/cluster': 'capi-prod-web' } });
    const r = await run({
      ...base,
      CAPI_CLEANUP_AUTH_URL: fake.authUrl,
      CAPI_CLEANUP_REGION: 'RegionOne',
      CAPI_CLEANUP_TIMEOUT_MINUTES: '0.01',
      CAPI_CLEANUP_POLL_SECONDS: '0.05',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^cleanup-cluster-leftovers: FAILED for cluster "capi-prod-web": 1 of the cluster's resources could not be deleted within \d+ s: volume v1 \(pvc-1, 1 GiB\) still in-use \(attached to server srv-9\) when the time ran out/,
    );
  });

  test('exit 0 logging in with a clouds.yaml entry (password), as Terraform runs it', async () => {
    fake = await FakeOpenStack.start();
    fake.volumes.push({ id: 'v1', name: 'pvc-1', size: 1, status: 'available', metadata: { 'cinder.csi.openstack.org/cluster': 'capi-prod-web' } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cleanup-clouds-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'clouds.yaml'),
        `clouds:\n  op:\n    auth:\n      auth_url: ${fake.authUrl}\n      username: ${USER.name}\n      project_name: ${USER.project}\n    region_name: RegionOne\n`,
      );
      // the password only in the environment, like OS_PASSWORD for the provider
      const r = await run({ OS_CLIENT_CONFIG_FILE: path.join(dir, 'clouds.yaml'), OS_PASSWORD: USER.password, CAPI_CLEANUP_CLOUD: 'op', CAPI_CLEANUP_CLUSTER_NAME: 'capi-prod-web', CAPI_CLEANUP_POLL_SECONDS: '0.05' });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('as user operator (domain Default), project proj (domain Default)');
      expect(r.stdout + r.stderr).not.toContain(USER.password);
      expect(fake.volumes).toHaveLength(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('exit 1 when no region is given and the catalog has several', async () => {
    fake = await FakeOpenStack.start();
    const r = await run({ ...base, CAPI_CLEANUP_AUTH_URL: fake.authUrl });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAILED for cluster "capi-prod-web": the catalog lists public network endpoints in several regions \(OtherRegion, RegionOne\): give the region\n$/);
    expect(fake.mutations()).toEqual([]);
  });

  test('exit 1 on a refused login, without the secret', async () => {
    fake = await FakeOpenStack.start();
    const r = await run({ ...base, CAPI_CLEANUP_AUTH_URL: fake.authUrl, CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET: 'wrong-secret-5678' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cleanup-cluster-leftovers: FAILED for cluster "capi-prod-web": Keystone refused application credential ac-1: .*HTTP 401 \(unknown, expired or a wrong secret\)/);
    expect(r.stdout + r.stderr).not.toContain('wrong-secret-5678');
  });
});
