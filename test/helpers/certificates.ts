// Certificates for the mutual-TLS tests (RFC 8705), made with openssl in a temporary folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA of the test's own and a client certificate it signed (tls_client_auth, RFC 8705 section 2.1), made with openssl. */
export interface ClientCa {
  caFile: string;
  certFile: string;
  keyFile: string;
  subjectDn: string;
  remove(): void;
}

/** In `dir` (a new temporary folder by default): ca.pem, ca.key, client.pem, client.key. */
export function makeClientCa(cn: string, dir = mkdtempSync(join(tmpdir(), 'oauthctl-client-ca-'))): ClientCa {
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=Test Client CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  openssl('req', '-new', ...ec, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', `/O=Example/CN=${cn}`);
  writeFileSync(f('client.ext'), 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n');
  openssl('x509', '-req', '-in', f('client.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('client.pem'), '-days', '1', '-extfile', f('client.ext'));
  return { caFile: f('ca.pem'), certFile: f('client.pem'), keyFile: f('client.key'), subjectDn: `CN=${cn},O=Example`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A certificate that signs itself, and its key: `NAME.pem` and `NAME.key` in `dir`. */
export interface SelfSigned {
  certFile: string;
  keyFile: string;
}

/**
 * A self-signed certificate made with openssl, valid `days` (default 1): an EC P-256 key unless `key`
 * is 'rsa' (RSA 2048, for the ECDHE-RSA cipher suites), the subject `/CN=127.0.0.1` with the IP
 * address as its subjectAltName (what Node and kubectl check for a loopback server) unless given.
 */
export function makeSelfSigned(dir: string, name: string, options: { key?: 'ec' | 'rsa'; subject?: string; subjectAltName?: string | null; days?: number } = {}): SelfSigned {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  const key = options.key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const san = options.subjectAltName === undefined ? 'IP:127.0.0.1' : options.subjectAltName;
  const args = ['req', '-x509', ...key, '-nodes', '-keyout', keyFile, '-out', certFile, '-days', String(options.days ?? 1), '-subj', options.subject ?? '/CN=127.0.0.1'];
  if (san !== null) args.push('-addext', `subjectAltName=${san}`);
  execFileSync('openssl', args, { stdio: 'ignore' });
  return { certFile, keyFile };
}
