/** credentialsFromCloudsYaml: where the entry is found, what it turns into, what is refused and how. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CloudsFileError } from '../../../lib/config/clouds-file';
import { credentialsFromCloudsYaml } from '../../../lib/runtime/cleanup/clouds-yaml';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clouds-yaml-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const PASSWORD_CLOUD = `clouds:
  prod:
    auth:
      auth_url: https://keystone.example.com:5000/v3
      username: operator
      password: pw-1
      project_id: 0123abcd
      user_domain_id: default
    region_name: RegionOne
    interface: internal
`;

describe('credentialsFromCloudsYaml', () => {
  test('password entry from OS_CLIENT_CONFIG_FILE, before ./clouds.yaml', () => {
    const file = write('a/clouds.yaml', PASSWORD_CLOUD);
    write('cwd/clouds.yaml', PASSWORD_CLOUD.replace('pw-1', 'from-cwd'));
    const got = credentialsFromCloudsYaml({ cloud: 'prod', env: { OS_CLIENT_CONFIG_FILE: file }, cwd: path.join(dir, 'cwd') });
    expect(got.file).toBe(file);
    expect(got.credentials).toEqual({
      authUrl: 'https://keystone.example.com:5000/v3',
      auth: { type: 'password', user: { id: undefined, name: 'operator', domainId: 'default', domainName: undefined }, password: 'pw-1', project: { id: '0123abcd', name: undefined, domainId: undefined, domainName: undefined } },
      region: 'RegionOne',
      endpointInterface: 'internal',
      caPem: undefined,
      insecure: false,
    });
  });

  test('./clouds.yaml of the working directory (where Terraform runs the provider and the provisioner)', () => {
    write('cwd/clouds.yaml', PASSWORD_CLOUD);
    expect(credentialsFromCloudsYaml({ cloud: 'prod', env: {}, cwd: path.join(dir, 'cwd') }).file).toBe(path.join(dir, 'cwd', 'clouds.yaml'));
  });

  test('secure.yaml adds the password; OS_PASSWORD fills a missing one', () => {
    const file = write('clouds.yaml', PASSWORD_CLOUD.replace('      password: pw-1\n', ''));
    const secure = write('secure.yaml', 'clouds:\n  prod:\n    auth:\n      password: from-secure\n');
    const a = credentialsFromCloudsYaml({ cloud: 'prod', file, env: { OS_CLIENT_SECURE_FILE: secure }, cwd: dir });
    expect(a.credentials.auth).toMatchObject({ type: 'password', password: 'from-secure' });
    const b = credentialsFromCloudsYaml({ cloud: 'prod', file, env: { OS_PASSWORD: 'from-env' }, cwd: path.join(dir, 'nowhere') });
    expect(b.credentials.auth).toMatchObject({ type: 'password', password: 'from-env' });
    expect(() => credentialsFromCloudsYaml({ cloud: 'prod', file, env: {}, cwd: path.join(dir, 'nowhere') })).toThrow(
      new CloudsFileError(`cloud "prod" in ${file} has no auth.password (nor is OS_PASSWORD set)`),
    );
  });

  test('application credential entry; cacert relative to the file; verify: false', () => {
    write('certs/ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const file = write(
      'clouds.yaml',
      `clouds:
  ac:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com:5000
      application_credential_id: ac-1
      application_credential_secret: s-1
    cacert: certs/ca.pem
    verify: false
  acname:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com:5000
      application_credential_name: cred
      username: operator
      user_domain_name: Users
      application_credential_secret: s-2
`,
    );
    const ac = credentialsFromCloudsYaml({ cloud: 'ac', file, env: {} }).credentials;
    expect(ac.auth).toEqual({ type: 'application_credential', id: 'ac-1', name: undefined, user: undefined, secret: 's-1' });
    expect(ac.caPem).toContain('BEGIN CERTIFICATE');
    expect(ac.insecure).toBe(true);
    const byName = credentialsFromCloudsYaml({ cloud: 'acname', file, env: {} }).credentials;
    expect(byName.auth).toMatchObject({ type: 'application_credential', name: 'cred', user: { name: 'operator', domainName: 'Users' }, secret: 's-2' });
  });

  test.each([
    ['no such cloud', 'other', PASSWORD_CLOUD, /no cloud "other" in .*clouds.yaml \(looked at .*clouds.yaml\)/],
    ['no auth_url', 'prod', PASSWORD_CLOUD.replace(/ {6}auth_url: .*\n/, ''), /cloud "prod" in .* has no auth.auth_url/],
    ['token auth', 'prod', PASSWORD_CLOUD.replace('    auth:', '    auth_type: token\n    auth:'), /auth_type "token" is not supported by the cleanup \(password, v3applicationcredential\)/],
    ['no project', 'prod', PASSWORD_CLOUD.replace(/ {6}project_id: .*\n/, ''), /has neither auth.project_name nor auth.project_id: the cleanup needs a project-scoped token/],
    ['unreadable cacert', 'prod', `${PASSWORD_CLOUD}    cacert: missing.pem\n`, /cacert .*missing.pem cannot be read/],
    ['not YAML', 'prod', 'clouds: [', /cannot be read as YAML/],
  ])('%s', (_what, cloud, text, message) => {
    const file = write('clouds.yaml', text);
    expect(() => credentialsFromCloudsYaml({ cloud, file, env: {} })).toThrow(message);
  });
});
