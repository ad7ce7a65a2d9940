/** URLs in environment files: no credentials in them, and https unless plain http is chosen on purpose (or stays on loopback). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { plainHttpOverNetwork } from '../../lib/config/fields';
import { withDeployAccess } from '../support/deploy-access';

const FILE = 'environments/t.yaml';
const base = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
const parse = (extra: string) => parseEnvironment(withDeployAccess(`${base}${extra}`), FILE);

function errorOf(extra: string): string {
  try {
    parse(extra);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  throw new Error(`expected ${extra} to be refused`);
}

describe('credentials in URLs', () => {
  test.each([
    ['proxy.httpProxy', 'proxy:\n  httpProxy: http://user:s3cret@proxy.example:3128\n', 'proxy.httpProxy'],
    ['a mirror endpoint', 'registryMirrors:\n  - registry: docker.io\n    endpoints: ["https://u:p@mirror.example"]\n', 'registryMirrors[0].endpoints[0]'],
    ['the state endpoint', 'stateBackend:\n  endpoint: https://key:secret@s3.example\n  bucket: state\n', 'stateBackend.endpoint'],
    ['the auth URL (user only)', '', 'cloud.authUrl'],
  ])('in %s are refused with the reason and what to do instead', (_what, extra, field) => {
    const message = extra ? errorOf(extra) : (() => {
      try {
        parseEnvironment(withDeployAccess(base.replace('https://keystone', 'https://admin@keystone')), FILE);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(message).toContain(`${field}: expected a URL without "user:password@" (it would be written in clear into the synthesized JSON, the plan and world-readable files on the VM and the nodes)`);
    expect(message).toContain('let it admit the management and node networks by address');
  });

  test('an "@" in the path is no credential', () => {
    expect(parse('registryMirrors:\n  - registry: docker.io\n    endpoints: ["https://mirror.example/v2/@team"]\n').registryMirrors[0].endpoints).toEqual(['https://mirror.example/v2/@team']);
  });
});

describe('plain http for the state store and registry mirrors', () => {
  test('refused over a network, naming the field and the opt-in', () => {
    expect(errorOf('stateBackend:\n  endpoint: http://s3.example:8080\n  bucket: state\n')).toContain(
      't.yaml:5:13: stateBackend.endpoint: expected an https:// URL (plain http can be read and changed on the way; set allowPlainHttp: true to accept that), found "http://s3.example:8080"',
    );
    expect(errorOf('registryMirrors:\n  - registry: docker.io\n    endpoints: [https://a.example, http://b.example]\n')).toContain(
      'registryMirrors[0].endpoints[1]: expected an https:// URL (plain http can be read and changed on the way; set allowPlainHttp: true to accept that), found "http://b.example"',
    );
  });

  test('accepted with allowPlainHttp: true, or on loopback', () => {
    expect(parse('stateBackend:\n  endpoint: http://s3.example:8080\n  bucket: state\n  allowPlainHttp: true\n').spec.stateBackend?.endpoint).toBe('http://s3.example:8080');
    expect(parse('registryMirrors:\n  - registry: docker.io\n    endpoints: [http://b.example]\n    allowPlainHttp: true\n').registryMirrors[0].endpoints).toEqual(['http://b.example']);
    expect(parse('stateBackend:\n  endpoint: http://127.0.0.1:9410\n  bucket: state\n').spec.stateBackend?.allowPlainHttp).toBe(false);
    for (const url of ['http://localhost:8080', 'http://127.0.0.1', 'http://[::1]:9000/x', 'https://s3.example']) expect(plainHttpOverNetwork(url)).toBe(false);
    for (const url of ['http://127.0.0.1.evil.example', 'http://localhost.example', 'http://10.0.0.1', 'HTTP://s3.example']) expect(plainHttpOverNetwork(url)).toBe(true);
  });
});

test('a URL with a Terraform template directive is refused', () => {
  expect(errorOf('proxy:\n  httpProxy: "http://p.example:3128/%{endif}"\n')).toContain('proxy.httpProxy: expected a URL without "%{" (Terraform template syntax; write "{" as %7B), found "http://p.example:3128/%{endif}"');
});

describe('plain http for Keystone (cloud.authUrl and the clouds.yaml auth_url), as for the other URLs', () => {
  const withAuthUrl = (url: string, extra = '') => `cloud:\n  name: mycloud\n  authUrl: ${url}\n${extra}`;
  const problemOf = (text: string, file = FILE): string => {
    try {
      parseEnvironment(withDeployAccess(text), file);
    } catch (e) {
      if (e instanceof EnvironmentConfigError) return e.message;
      throw e;
    }
    throw new Error('expected a refusal');
  };

  test('cloud.authUrl over http is refused over a network, naming file, line, field and the opt-in', () => {
    expect(problemOf(withAuthUrl('http://keystone.example:5000/v3'))).toContain(
      't.yaml:3:12: cloud.authUrl: expected an https:// URL (plain http can be read and changed on the way; set allowPlainHttp: true to accept that), found "http://keystone.example:5000/v3"',
    );
  });

  test('accepted with cloud.allowPlainHttp: true, or on loopback', () => {
    expect(parseEnvironment(withDeployAccess(withAuthUrl('http://keystone.example:5000/v3', '  allowPlainHttp: true\n')), FILE).cloud.authUrl).toBe('http://keystone.example:5000/v3');
    expect(parseEnvironment(withDeployAccess(withAuthUrl('http://127.0.0.1:5000/v3')), FILE).cloud.authUrl).toBe('http://127.0.0.1:5000/v3');
  });

  describe('the auth_url of a clouds.yaml entry synthesis reads', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'urls-clouds-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const entry = (url: string, project: string) => `    auth: {auth_url: "${url}", username: op, project_name: ${project}, project_domain_name: Default}\n    region_name: RegionOne\n`;
    fs.writeFileSync(
      path.join(dir, 'clouds.yaml'),
      `clouds:\n  plain:\n${entry('http://keystone.example:5000/v3', 'workloads')}  loop:\n${entry('http://127.0.0.1:5000/v3', 'workloads')}  safe:\n${entry('https://keystone.example:5000/v3', 'workloads')}  plain-mgmt:\n${entry('http://keystone.example:5000/v3', 'management')}`,
    );
    const file = path.join(dir, 'lab.yaml');
    const env = (cloud: string, extra = '') => `cloud:\n  name: ${cloud}\n  cloudsFile: clouds.yaml\n${extra}`;

    test('cloud.name\'s entry over http is refused, naming the entry, the clouds.yaml and the opt-in', () => {
      expect(problemOf(env('plain'), file)).toContain(
        `lab.yaml:2:9: cloud.name: expected auth.auth_url of "plain" in ${path.join(dir, 'clouds.yaml')} to be an https:// URL (credentials and tokens sent over plain http can be read and changed on the way; set cloud.allowPlainHttp: true to accept that), found "http://keystone.example:5000/v3"`,
      );
    });

    test('management.cloud\'s entry too', () => {
      expect(problemOf(env('safe', 'management:\n  cloud: plain-mgmt\n'), file)).toMatch(/lab\.yaml:\d+:\d+: management\.cloud: expected auth\.auth_url of "plain-mgmt" in \S+clouds\.yaml to be an https:\/\/ URL/);
    });

    test('accepted with cloud.allowPlainHttp: true, or on loopback; CAPO then gets that URL', () => {
      expect(parseEnvironment(withDeployAccess(env('plain', '  allowPlainHttp: true\n')), file).cloud.authUrl).toBe('http://keystone.example:5000/v3');
      expect(parseEnvironment(withDeployAccess(env('loop')), file).cloud.authUrl).toBe('http://127.0.0.1:5000/v3');
    });
  });
});
