import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { MAX_CA_FILE_BYTES } from '../../lib/config/ca-file';
import { withDeployAccess } from '../support/deploy-access';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfakeCERT+/=\n-----END CERTIFICATE-----\n';
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type CaField = 'cloud' | 'mirror' | 'management';
const CLOUD = 'cloud:\n  name: mycloud\n  authUrl: https://keystone.test:5000/v3\n';
const environment = (caFile: string, field: CaField) =>
  withDeployAccess(
    {
      cloud: `${CLOUD}  caCertificateFile: ${JSON.stringify(caFile)}\n`,
      mirror: `${CLOUD}registryMirrors:\n  - registry: docker.io\n    endpoints: [https://m.example]\n    caCertificateFile: ${JSON.stringify(caFile)}\n`,
      management: `${CLOUD}management:\n  trustedCaCertificateFile: ${JSON.stringify(caFile)}\n`,
    }[field],
  );
const FIELD_PATH: Record<CaField, string> = { cloud: 'cloud.caCertificateFile', mirror: 'registryMirrors[0].caCertificateFile', management: 'management.trustedCaCertificateFile' };
const load = (caFile: string, field: CaField = 'cloud') => parseEnvironment(environment(caFile, field), path.join(dir, 't.yaml'));

function errorOf(caFile: string, field: CaField = 'cloud'): string {
  try {
    load(caFile, field);
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return e.message;
    throw e;
  }
  throw new Error(`expected ${caFile} to be refused`);
}

function file(name: string, content: string): string {
  fs.writeFileSync(path.join(dir, name), content);
  return path.join(dir, name);
}

describe('CA files: certificates only, from regular files of bounded size', () => {
  test.each(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'])('a file holding a %s next to the certificate is refused, naming the file', (kind) => {
    const ca = file(`with-${kind.replace(/ /g, '-')}.pem`, `${CERT}-----BEGIN ${kind}-----\nMIIEsecret\n-----END ${kind}-----\n`);
    for (const field of ['cloud', 'mirror', 'management'] as const) {
      const message = errorOf(ca, field);
      expect(message).toContain(`${FIELD_PATH[field]}: expected certificates only`);
      expect(message).toContain(`found a private key ("-----BEGIN ${kind}-----") in ${ca}`);
      expect(message).not.toContain('MIIEsecret');
    }
  });

  test('a directory, /dev/zero and a FIFO each get a clear message (no EISDIR, no allocation failure, no hang)', () => {
    expect(errorOf(dir)).toContain(`cloud.caCertificateFile: expected a regular PEM file, found a directory at ${dir}`);
    expect(errorOf('/dev/zero')).toContain('cloud.caCertificateFile: expected a regular PEM file, found a device at /dev/zero');
    const fifo = path.join(dir, 'ca.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(errorOf(fifo, 'mirror')).toContain(`registryMirrors[0].caCertificateFile: expected a regular PEM file, found a FIFO at ${fifo}`);
  });

  test('a file over the bound is refused from its size, before it is read', () => {
    const big = file('big.pem', CERT + 'x'.repeat(MAX_CA_FILE_BYTES));
    expect(errorOf(big)).toContain(`cloud.caCertificateFile: expected a PEM file of at most ${MAX_CA_FILE_BYTES} bytes, found ${MAX_CA_FILE_BYTES + CERT.length} bytes at ${big}`);
  });

  test('only the certificate blocks are taken: text around them (Terraform syntax included) is dropped', () => {
    const ca = file('bundle.pem', `# issued by \${file("/etc/hostname")}\r\nsubject=%{ if true }x%{ endif }\n${CERT.replace(/\n/g, '\r\n')}trailing\n${CERT.replace('fake', 'other')}`);
    const env = load(ca);
    expect(env.cloud.caCertificatePem).toBe(CERT + CERT.replace('fake', 'other'));
    // a link to a regular file is fine
    fs.symlinkSync(ca, path.join(dir, 'link.pem'));
    expect(load(path.join(dir, 'link.pem'), 'mirror').registryMirrors[0].caCertificatePem).toBe(env.cloud.caCertificatePem);
    expect(load(ca, 'management').managementTrustedCaPem).toBe(env.cloud.caCertificatePem);
    expect(errorOf(path.join(dir, 'missing.pem'), 'management')).toContain(`management.trustedCaCertificateFile: expected a readable PEM file, found no file at ${path.join(dir, 'missing.pem')}`);
    expect(errorOf(file('none.pem', 'no certificate here\n'))).toContain('expected a PEM certificate, found a file without a "BEGIN CERTIFICATE" block');
  });
});
