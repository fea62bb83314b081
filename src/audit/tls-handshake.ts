import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';

export interface Handshake {
  /** The negotiated protocol (`TLSv1.3`, ...), or undefined when no handshake completed. */
  protocol?: string | undefined;
  /** Whether the certificate chains to a trusted CA and names the host. */
  authorized?: boolean | undefined;
  authorizationError?: string | undefined;
  /** Why no handshake completed. */
  error?: { code: string; message: string } | undefined;
}

/** One TLS handshake with the server, nothing sent after it; the certificate is judged, never trusted blindly. */
export function handshake(url: URL, options: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers'> = {}, timeoutMs = 10_000): Promise<Handshake> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(url.port || 443), ...(isIP(host) ? {} : { servername: host }), rejectUnauthorized: false, ...options });
    socket.setTimeout(timeoutMs, () => socket.destroy(Object.assign(new Error(`no TLS handshake within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })));
    socket.once('secureConnect', () => {
      const authError = socket.authorizationError as unknown;
      resolve({
        protocol: socket.getProtocol() ?? undefined,
        authorized: socket.authorized,
        authorizationError: authError === undefined || authError === null ? undefined : String((authError as { code?: string }).code ?? authError),
      });
      socket.end();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve({ error: { code: err.code ?? 'ERROR', message: err.message } }));
  });
}

/** A TLS 1.0/1.1-only handshake: the OpenSSL security level is lowered, or it would not even offer them. */
export const LEGACY_TLS: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers'> = { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' };
