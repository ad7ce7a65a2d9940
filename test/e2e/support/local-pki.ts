/**
 * Certificates for the processes the e2e tier runs in place of a workload cluster's machines
 * (API server, etcd members, kubelet stand-in), made with openssl from a CA that KCP generated (or
 * one a test makes). Short-lived, loopback names only.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** PEM files of a certificate and its key. */
export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

/** serverAuth for 127.0.0.1/localhost, clientAuth, or both (etcd's gateway dials itself with its serving certificate). */
export type CertUsage = 'server' | 'client' | 'server+client';

const USAGES: Record<CertUsage, string> = { server: 'serverAuth', client: 'clientAuth', 'server+client': 'serverAuth,clientAuth' };

/** A new CA (self-signed) as `<name>.crt`/`<name>.key` in dir. */
export function makeCa(dir: string, name: string, cn: string): CertFiles {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-subj', `/CN=${cn}`, '-days', '7', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature', '-out', `${name}.crt`], dir);
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
}

/**
 * A certificate signed by ca as `<name>.crt`/`<name>.key` in dir; subject like `/CN=x/O=y`; a
 * serving certificate names `altNames` (default 127.0.0.1 and localhost).
 */
export function issueCertificate(dir: string, name: string, ca: CertFiles, subject: string, usage: CertUsage, altNames = 'IP:127.0.0.1,DNS:localhost'): CertFiles {
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  const san = usage === 'client' ? '' : `subjectAltName=${altNames}\n`;
  fs.writeFileSync(path.join(dir, `${name}.ext`), `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=${USAGES[usage]}\n${san}`);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '7', '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.crt`], dir);
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
}

/** Writes a CA given as PEM text (from a Secret) to `<name>.crt`/`<name>.key` in dir. */
export function writeCa(dir: string, name: string, pem: Record<string, string>): CertFiles {
  fs.writeFileSync(path.join(dir, `${name}.crt`), pem['tls.crt']);
  fs.writeFileSync(path.join(dir, `${name}.key`), pem['tls.key'], { mode: 0o600 });
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
}
