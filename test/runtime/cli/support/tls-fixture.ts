/**
 * A CA, a server certificate for 127.0.0.1 and a client certificate, made with the openssl CLI,
 * for tests that speak TLS with client-certificate authentication like a Kubernetes API server.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export interface TlsFixture {
  readonly caPem: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

export function makeTlsFixture(dir: string, name = 'ca'): TlsFixture {
  const f = (n: string) => path.join(dir, `${name}-${n}`);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', `/CN=${name}`);
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=kube-apiserver');
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.crt'), '-days', '2', '-extfile', f('server.ext'));
  fs.writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  ssl('req', ...ec, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/O=system:masters/CN=admin');
  ssl('x509', '-req', '-in', f('client.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('client.crt'), '-days', '2', '-extfile', f('client.ext'));
  const read = (n: string) => fs.readFileSync(f(n), 'utf8');
  return { caPem: read('ca.crt'), serverCertPem: read('server.crt'), serverKeyPem: read('server.key'), clientCertPem: read('client.crt'), clientKeyPem: read('client.key') };
}
