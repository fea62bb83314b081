import { fetchAuthorizationPages } from '../../authorization-pages.js';
import { handshake, LEGACY_TLS } from '../../tls-handshake.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** Errors that say this machine's OpenSSL cannot offer TLS 1.0/1.1 at all (not the server's refusal). */
const LOCAL_REFUSAL = /NO_PROTOCOLS_AVAILABLE|UNSUPPORTED_PROTOCOL.*client|ERR_TLS_INVALID_PROTOCOL_VERSION/;
/** A direct connection that cannot be made says nothing about the server's TLS (a proxy may be the only way there). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * RFC 8996 (BCP 195): TLS 1.2 or newer only and a certificate valid for the
 * host, at the authorization and the token endpoint; HSTS (RFC 6797) on the authorization endpoint, so
 * that the browser never goes there over plain http.
 */
export const tlsProbe: AuditProbe = {
  id: 'tls',
  title: 'TLS 1.2+, valid certificate, HSTS',
  rfc: 'RFC 8996; RFC 6797',
  category: 'tls',
  threat: 'RFC 8996; RFC 6797; RFC 9700 §4.12 (TLS terminating proxies)',
  remedy: 'Offer TLS 1.2 or later only, a valid certificate, and Strict-Transport-Security.',
  async run(ctx) {
    const authorization = new URL(ctx.config.authorizationEndpoint);
    if (authorization.protocol !== 'https:') return skip(`the authorization endpoint is ${authorization.protocol.slice(0, -1)}, not https`);
    const hosts = [...new Map([authorization, new URL(ctx.config.tokenEndpoint)].filter((u) => u.protocol === 'https:').map((u) => [u.host, u])).values()];
    const failures: string[] = [];
    const notes: string[] = [];
    const seen: string[] = [];
    for (const url of hosts) {
      const where = hosts.length > 1 ? `${url.host}: ` : '';
      const normal = await handshake(url);
      if (normal.error) {
        if (UNREACHABLE.has(normal.error.code)) return skip(`no direct connection to ${url.host} (${normal.error.code}; behind a proxy?)`);
        failures.push(`${where}no TLS handshake: ${normal.error.message}`);
        continue;
      }
      seen.push(`${where}${normal.protocol ?? '?'}`);
      if (normal.protocol !== 'TLSv1.2' && normal.protocol !== 'TLSv1.3') failures.push(`${where}negotiated ${normal.protocol ?? 'an unknown protocol'}`);
      if (!normal.authorized) failures.push(`${where}the certificate is not valid for ${url.hostname}: ${normal.authorizationError ?? 'not trusted'}`);
      const legacy = await handshake(url, LEGACY_TLS);
      if (legacy.protocol) failures.push(`${where}accepts ${legacy.protocol} (RFC 8996: TLS 1.0 and 1.1 MUST NOT be used)`);
      else if (legacy.error && LOCAL_REFUSAL.test(`${legacy.error.code} ${legacy.error.message}`)) notes.push(`${where}TLS 1.0/1.1 not tried: this OpenSSL cannot offer them`);
      else notes.push(`${where}TLS 1.0/1.1 refused`);
    }
    const first = (await fetchAuthorizationPages(ctx))[0];
    const hsts = first?.headers['strict-transport-security'];
    const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts ?? '')?.[1] ?? 0);
    const text = (extra: string[]) => [...extra, ...notes].join('; ');
    if (failures.length > 0) return fail(text(failures));
    const tls = `${seen.join(', ')}, certificate valid`;
    if (!hsts || maxAge <= 0) return warn(text([`${tls}, but the authorization endpoint sends no Strict-Transport-Security${hsts ? ` with max-age > 0 (${hsts})` : ''}`]));
    return pass(text([`${tls}, Strict-Transport-Security: ${hsts}`]));
  },
};
