/** Throw-away PKI for the readiness tests, made with the openssl CLI (EC P-256: fast). */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface TestPki {
  readonly dir: string;
  /** CA that signs the server and the good client certificate. */
  readonly ca: KeyPair;
  /** Server certificate for 127.0.0.1 / localhost. */
  readonly server: KeyPair;
  /** Client certificate O=system:masters, CN=readiness-test. */
  readonly client: KeyPair;
  /** A second, unrelated CA and a client certificate it signed (the "wrong" client certificate). */
  readonly otherCa: KeyPair;
  readonly otherClient: KeyPair;
  cleanup(): void;
}

export function makeTestPki(): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readiness-pki-'));
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const read = (name: string): KeyPair => ({ certPem: fs.readFileSync(file(`${name}.crt`), 'utf8'), keyPem: fs.readFileSync(file(`${name}.key`), 'utf8') });

  const makeCa = (name: string, cn: string): KeyPair => {
    openssl('req', '-x509', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${cn}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    return read(name);
  };
  const makeLeaf = (name: string, ca: string, subject: string, extensions: string): KeyPair => {
    fs.writeFileSync(file(`${name}.ext`), extensions);
    openssl('req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-set_serial', `0x${randomBytes(8).toString('hex')}`,
      '-days', '2', '-out', `${name}.crt`, '-extfile', `${name}.ext`);
    return read(name);
  };

  const ca = makeCa('ca', 'readiness-test-ca');
  const server = makeLeaf('server', 'ca', '/CN=kube-apiserver',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n');
  const client = makeLeaf('client', 'ca', '/O=system:masters/CN=readiness-test', 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const otherCa = makeCa('other-ca', 'unrelated-ca');
  const otherClient = makeLeaf('other-client', 'other-ca', '/O=system:masters/CN=intruder', 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  return { dir, ca, server, client, otherCa, otherClient, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
