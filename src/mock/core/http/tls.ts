import { execFile } from 'node:child_process';
// fs.promises rather than node:fs/promises: loaded when --tls needs files, not by every serve-mock start.
import { promises as fs } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TlsOptions as TlsServerOptions } from 'node:tls';

const run = promisify(execFile);

/** The PEM material of an HTTPS server: its key and certificate, and the CA that signed it. */
export interface TlsMaterial {
  key: string;
  cert: string;
  /** The CA's certificate (PEM), for clients to trust (NODE_EXTRA_CA_CERTS) and to verify client certificates. */
  ca: string;
}

/** openssl is not on PATH: --tls cannot make its certificate. */
export class OpensslMissingError extends Error {}

/**
 * A CA and a server certificate made at start, valid for a day, with the host, 127.0.0.1,
 * localhost and ::1 as subjectAltName (RFC 5280 section 4.2.1.6). Node has no certificate builder, so
 * openssl makes them in a temporary directory, which is removed before this returns. P-256 keys.
 */
export async function makeTlsMaterial(host: string): Promise<TlsMaterial> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'oauthctl-mock-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = async (...args: string[]) => {
    try {
      await run('openssl', args, { timeout: 30_000 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new OpensslMissingError('serve-mock --tls needs openssl on PATH to make its certificate');
      throw err;
    }
  };
  try {
    const names = new Set(['DNS:localhost', 'IP:127.0.0.1', 'IP:::1', `${isIP(host) ? 'IP' : 'DNS'}:${host}`]);
    await fs.writeFile(
      file('ext.cnf'),
      [
        '[server]',
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${[...names].join(',')}`,
        'authorityKeyIdentifier=keyid',
        '',
      ].join('\n'),
    );
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    await openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=oauthctl mock CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    await openssl('req', '-new', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', `/CN=${host}`);
    await openssl(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('server.pem'),
      '-days',
      '1',
      '-extfile',
      file('ext.cnf'),
      '-extensions',
      'server',
    );
    const [key, cert, ca] = await Promise.all([fs.readFile(file('server.key'), 'utf8'), fs.readFile(file('server.pem'), 'utf8'), fs.readFile(file('ca.pem'), 'utf8')]);
    return { key, cert, ca };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The server's TLS: given key and certificate (PEM), or made at start (`true`). */
export type MockTlsOption = true | { key: string; cert: string };

/**
 * The options of the HTTPS server: it asks for a client certificate but does not require one, nor
 * refuse an unverified one (RFC 8705 section 2: the endpoint decides, self-signed certificates are
 * a method of their own); `ca` is what a tls_client_auth certificate must chain to: the CA made at
 * start and the configuration's tls_client_auth_ca. `madeCa` is the CA made at start.
 */
export async function httpsServerOptions(tls: MockTlsOption, host: string, clientCa: string | undefined): Promise<{ options: TlsServerOptions; madeCa?: string }> {
  const material = tls === true ? await makeTlsMaterial(host) : undefined;
  const key = material?.key ?? (tls as { key: string }).key;
  const cert = material?.cert ?? (tls as { cert: string }).cert;
  const cas = [material?.ca, clientCa].filter((c): c is string => c !== undefined);
  // Without any CA, nothing verifies as tls_client_auth: the server's own certificate signs no client's.
  const options: TlsServerOptions = { key, cert, ca: cas.length > 0 ? cas : [cert], requestCert: true, rejectUnauthorized: false };
  return material ? { options, madeCa: material.ca } : { options };
}

/** tls_client_auth_ca: PEM text as it is, else the path of a PEM file. */
export async function readClientCa(value: string): Promise<string> {
  if (value.trimStart().startsWith('-----BEGIN')) return value;
  return fs.readFile(value, 'utf8');
}
