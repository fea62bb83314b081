import { fetchAuthorizationPages, isHtml, type FetchedPage } from '../../authorization-pages.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** How a page forbids framing, or undefined when it does not: X-Frame-Options, or CSP frame-ancestors without a wildcard. */
export function framingProtection(headers: Record<string, string>): string | undefined {
  const xfo = headers['x-frame-options']?.trim();
  if (xfo && /^(deny|sameorigin)$/i.test(xfo)) return `X-Frame-Options: ${xfo}`;
  const csp = headers['content-security-policy'] ?? '';
  const directive = csp
    .split(/[;,]/)
    .map((d) => d.trim())
    .find((d) => /^frame-ancestors(\s|$)/i.test(d));
  if (directive && !/(\s|^)(\*|https?:|https?:\/\/\*)(\s|$)/i.test(directive.slice('frame-ancestors'.length))) return `CSP ${directive}`;
  return undefined;
}

/**
 * RFC 6749 section 10.13 and RFC 9700 section 4.16: the authorization server's pages cannot be framed
 * (clickjacking). A page without either header warns rather than fails: section 4.16 also accepts
 * frame-busting JavaScript, which the audit cannot see at work.
 */
export const framingProbe: AuditProbe = {
  id: 'framing',
  title: 'authorization pages forbid framing',
  rfc: 'RFC 9700 §4.16',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.16 (clickjacking); RFC 6819 §4.4.1.9',
  remedy: "Send X-Frame-Options: DENY or Content-Security-Policy frame-ancestors 'none' on the login and consent pages.",
  async run(ctx) {
    const pages = (await fetchAuthorizationPages(ctx)).filter((p: FetchedPage) => p.status === 200 && isHtml(p));
    if (pages.length === 0) return skip('the authorization endpoint showed no HTML page to a browser without a session');
    const open = pages.filter((p) => framingProtection(p.headers) === undefined);
    if (open.length > 0)
      return warn(`${open.map((p) => p.url.split('?')[0]).join(', ')}: neither X-Frame-Options DENY/SAMEORIGIN nor CSP frame-ancestors (frame-busting JavaScript, if any, is not checked)`);
    return pass(pages.map((p) => `${new URL(p.url).pathname}: ${framingProtection(p.headers) ?? ''}`).join('; '));
  },
};
