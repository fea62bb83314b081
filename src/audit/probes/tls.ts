import { fetchAuthorizationPages } from '../authorization-pages.js';
import { handshake, LEGACY_TLS } from '../tls-handshake.js';
import { fail, pass, skip, warn, type Probe } from '../types.js';

/** Errors that say this machine's OpenSSL cannot offer TLS 1.0/1.1 at all (not the server's refusal). */
const LOCAL_REFUSAL = /NO_PROTOCOLS_AVAILABLE|UNSUPPORTED_PROTOCOL.*client|ERR_TLS_INVALID_PROTOCOL_VERSION/;

/**
 * RFC 9700 section 2.6 and RFC 8996 (BCP 195): TLS 1.2 or newer only, a certificate valid for the host,
 * and HSTS on the authorization endpoint so that the browser never goes there over plain http.
 */
export const tlsProbe: Probe = {
  id: 'tls',
  title: 'TLS 1.2+, valid certificate, HSTS',
  rfc: 'RFC 8996; RFC 6797',
  async run(ctx) {
    const endpoint = new URL(ctx.config.authorizationEndpoint);
    if (endpoint.protocol !== 'https:') return skip(`the authorization endpoint is ${endpoint.protocol.slice(0, -1)}, not https`);
    const failures: string[] = [];
    const notes: string[] = [];
    const normal = await handshake(endpoint);
    if (normal.error) return fail(`no TLS handshake with ${endpoint.host}: ${normal.error.message}`);
    if (normal.protocol !== 'TLSv1.2' && normal.protocol !== 'TLSv1.3') failures.push(`negotiated ${normal.protocol ?? 'an unknown protocol'}`);
    if (!normal.authorized) failures.push(`the certificate is not valid for ${endpoint.hostname}: ${normal.authorizationError ?? 'not trusted'}`);
    const legacy = await handshake(endpoint, LEGACY_TLS);
    if (legacy.protocol) failures.push(`accepts ${legacy.protocol} (RFC 8996: TLS 1.0 and 1.1 MUST NOT be used)`);
    else if (legacy.error && LOCAL_REFUSAL.test(`${legacy.error.code} ${legacy.error.message}`)) notes.push('TLS 1.0/1.1 not tried: this OpenSSL cannot offer them');
    else notes.push('TLS 1.0/1.1 refused');
    const first = (await fetchAuthorizationPages(ctx))[0];
    const hsts = first?.headers['strict-transport-security'];
    const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts ?? '')?.[1] ?? 0);
    const text = (extra: string[]) => [...extra, ...notes].join('; ');
    if (failures.length > 0) return fail(text(failures));
    if (!hsts || maxAge <= 0)
      return warn(text([`${normal.protocol}, certificate valid, but the authorization endpoint sends no Strict-Transport-Security${hsts ? ` with max-age > 0 (${hsts})` : ''}`]));
    return pass(text([`${normal.protocol}, certificate valid, Strict-Transport-Security: ${hsts}`]));
  },
};
