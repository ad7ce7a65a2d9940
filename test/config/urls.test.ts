/** URLs in environment files: no credentials in them, and https unless plain http is chosen on purpose (or stays on loopback). */
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
