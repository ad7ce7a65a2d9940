/**
 * `state credentials` against a small Keystone on 127.0.0.1: what the CLI sends (an expiring,
 * restricted application credential; the EC2 credential made with its token) and what it says.
 * The real Keystone is exercised by the team-state e2e.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { AddressInfo } from 'net';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';

interface Seen { method: string; path: string; token?: string; body?: any }

/** Keystone's answers to the calls `state credentials` makes; `refuseDelegated` = releases with LP#2159643. */
async function keystone(refuseDelegated: boolean) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = text ? JSON.parse(text) : undefined;
      const token = req.headers['x-auth-token'] as string | undefined;
      seen.push({ method: req.method!, path: req.url!, token, body });
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(json === undefined ? '' : JSON.stringify(json));
      };
      if (req.url === '/v3/auth/tokens') {
        const byAppCred = body.auth.identity.methods[0] === 'application_credential';
        return send(201, { token: { project: { id: 'p-state' }, user: { id: 'u-1' }, catalog: [] } }, { 'x-subject-token': byAppCred ? 'tok-appcred' : 'tok-password' });
      }
      if (req.method === 'POST' && req.url === '/v3/users/u-1/application_credentials') {
        const a = body.application_credential;
        return send(201, { application_credential: { id: 'ac-9', secret: 'ac-secret', expires_at: a.expires_at, roles: a.roles } });
      }
      if (req.method === 'POST' && req.url === '/v3/credentials') return refuseDelegated && token === 'tok-appcred' ? send(403, { error: { message: 'Delegated tokens cannot access credentials directly' } }) : send(201, { credential: {} });
      if (req.method === 'DELETE' && req.url === '/v3/users/u-1/application_credentials/ac-9') return send(204);
      if (req.method === 'GET' && req.url === '/v3/users/u-1/credentials/OS-EC2') return send(200, { credentials: [] });
      if (req.method === 'POST' && req.url === '/v3/users/u-1/credentials/OS-EC2') return send(201, { credential: { access: 'unbound-access', secret: 'unbound-secret', tenant_id: 'p-state' } });
      send(404, { error: `unexpected ${req.method} ${req.url}` });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

const PASSWORD_AUTH = '  auth_type: password\n  auth: {auth_url: AUTH, username: op, password: pw, project_name: PROJECT, user_domain_name: Default, project_domain_name: Default}\n';

function project(authUrl: string, auth = PASSWORD_AUTH.replace('PROJECT', 'state'), management = '') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-creds-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  const second = management ? ` ${management}:\n${PASSWORD_AUTH.replace('PROJECT', 'management').replace('AUTH', authUrl)}` : '';
  fs.writeFileSync(path.join(dir, 'clouds.yaml'), `clouds:\n mine:\n${auth.replace('AUTH', authUrl)}${second}`);
  fs.writeFileSync(path.join(dir, 'environments', 'dev.yaml'), `cloud:\n  name: mine\n  cloudsFile: ../clouds.yaml\nmanagement:\n  waitForReady: false\n${management ? `  cloud: ${management}\n` : ''}stateBackend:\n  endpoint: https://s3.example.com\n  bucket: capi-state\n`);
  return dir;
}

async function run(dir: string, argv: string[]) {
  const io = memoryIo(dir, { HOME: dir });
  const code = await runCli(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('capi-openstack state credentials', () => {
  test('makes an expiring application credential with only the given roles, and the EC2 credential with its token', async () => {
    const k = await keystone(false);
    try {
      const before = Date.now();
      const r = await run(project(k.url), ['state', 'credentials', 'dev', '--expires-in-hours', '6', '--roles', 'member,swiftoperator']);
      expect(r.err).toContain('bound to application credential ac-9 (roles member, swiftoperator; expires ');
      expect(r.code).toBe(0);
      const app = k.seen.find((s) => s.path === '/v3/users/u-1/application_credentials')!;
      expect(app.token).toBe('tok-password');
      expect(app.body.application_credential).toMatchObject({ roles: [{ name: 'member' }, { name: 'swiftoperator' }], unrestricted: false });
      expect(app.body.application_credential.name).toMatch(/^capi-openstack-state-dev-\d{8}-\d{6}$/);
      const expires = Date.parse(app.body.application_credential.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 6 * 3_600_000 - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 6 * 3_600_000);
      const ec2 = k.seen.find((s) => s.path === '/v3/credentials')!;
      expect(ec2.token).toBe('tok-appcred'); // Keystone binds what an application credential's token makes
      const blob = JSON.parse(ec2.body.credential.blob);
      expect(ec2.body.credential).toMatchObject({ type: 'ec2', user_id: 'u-1', project_id: 'p-state' });
      expect(r.out).toBe(`export AWS_ACCESS_KEY_ID=${blob.access}\nexport AWS_SECRET_ACCESS_KEY=${blob.secret}`);
      expect(blob.access).toMatch(/^[0-9a-f]{32}$/);
      expect(k.seen.some((s) => s.path.includes('OS-EC2'))).toBe(false); // no unbound credential reused or made
    } finally {
      await k.close();
    }
  });

  test('where Keystone refuses the bound kind: the application credential is deleted and a warning names what the unbound one can do', async () => {
    const k = await keystone(true);
    try {
      const r = await run(project(k.url), ['state', 'credentials', 'dev']);
      expect(r.code).toBe(0);
      expect(k.seen.some((s) => s.method === 'DELETE' && s.path === '/v3/users/u-1/application_credentials/ac-9' && s.token === 'tok-password')).toBe(true);
      expect(r.err).toContain('WARNING: Keystone refuses credentials to application-credential tokens (HTTP 403)');
      expect(r.err).toContain('Created EC2 credential unbound-access of project p-state (cloud mine): it never expires and carries every role of the user in that project');
      expect(r.err).toContain('openstack ec2 credentials delete unbound-access');
      expect(r.out).toBe('export AWS_ACCESS_KEY_ID=unbound-access\nexport AWS_SECRET_ACCESS_KEY=unbound-secret');
    } finally {
      await k.close();
    }
  });

  test('with management.cloud, the credential is made in the management project (where the state bucket belongs)', async () => {
    const k = await keystone(false);
    try {
      const r = await run(project(k.url, undefined, 'mine-mgmt'), ['state', 'credentials', 'dev']);
      expect(r.code).toBe(0);
      expect(r.err).toContain('(cloud mine-mgmt), bound to application credential');
      const login = k.seen.find((s) => s.path === '/v3/auth/tokens')!;
      expect(login.body.auth.scope.project.name).toBe('management');
    } finally {
      await k.close();
    }
  });

  test('bad --expires-in-hours and --roles are refused before any call', async () => {
    const k = await keystone(false);
    try {
      expect((await run(project(k.url), ['state', 'credentials', 'dev', '--expires-in-hours', '0'])).err).toContain('--expires-in-hours: expected a whole number from 1 to 8760, found "0"');
      expect((await run(project(k.url), ['state', 'credentials', 'dev', '--roles', 'member,$(id)'])).err).toContain('--roles: expected comma-separated role names');
      expect(k.seen).toEqual([]);
    } finally {
      await k.close();
    }
  });

  test('an entry that logs in with an application credential is told to use a password entry', async () => {
    const k = await keystone(false);
    try {
      const r = await run(project(k.url, '  auth_type: v3applicationcredential\n  auth: {auth_url: AUTH, application_credential_id: x, application_credential_secret: y}\n'), ['state', 'credentials', 'dev']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('logs in with an application credential, which Keystone does not let create further credentials');
    } finally {
      await k.close();
    }
  });
});
