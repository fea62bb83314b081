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
