import { httpsPagesOf } from '../../login-page.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 6797 section 7.1 (and RFC 9700 section 4.12 on the transport): every https response of the
 * server carries Strict-Transport-Security, error pages and redirects too, not only the one page a
 * scanner looks at first.
 */
export const tlsHstsAllPagesProbe: AuditProbe = {
  id: 'tls-hsts-all-pages',
  title: 'HSTS on every page of the login, its redirects and error pages',
  rfc: 'RFC 6797 §7.1',
  category: 'tls',
  threat: 'RFC 6797 §2.3 (TLS stripping on the first page without HSTS); RFC 6819 §5.1.1',
  remedy: 'Send Strict-Transport-Security from every response of the server (a reverse proxy rule does it).',
  async run(ctx) {
    const pages = await httpsPagesOf(ctx);
    const error = await ctx.http.request(ctx.authorizationUrl({ clientId: 'oauthctl-audit-unknown-client', pkce: ctx.freshPkce() }));
    const all = [
      ...pages.map((res, i) => ({ res, what: i === 0 ? 'the authorization endpoint' : `step ${i + 1} of the login (HTTP ${res.status})` })),
      { res: error, what: `the error page (HTTP ${error.status})` },
    ];
    if (!all.some((p) => p.res.headers['strict-transport-security'])) return skip('no Strict-Transport-Security at all (the tls probe reports it)');
    const without = all.filter((p) => !p.res.headers['strict-transport-security']).map((p) => p.what);
    if (without.length > 0) return warn(`no Strict-Transport-Security on ${without.join(', ')}`);
    return pass(`Strict-Transport-Security on all ${all.length} responses`);
  },
};
