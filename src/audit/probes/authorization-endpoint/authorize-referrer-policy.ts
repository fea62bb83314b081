import { pass, skip, warn, type AuditProbe } from '../../types.js';

const SAFE = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin', 'origin']);
const MAX_HOPS = 5;

/** RFC 9700 section 4.2.4: the server's pages keep their URLs (codes, state) out of Referer headers. */
export const authorizeReferrerPolicyProbe: AuditProbe = {
  id: 'authorize-referrer-policy',
  title: 'the login page sets a Referrer-Policy',
  rfc: 'RFC 9700 §4.2.4',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.2 (credential leakage via Referer headers)',
  remedy: 'Send Referrer-Policy: no-referrer (or strict-origin) with the authorization endpoint pages.',
  async run(ctx) {
    let url = ctx.authorizationUrl({ pkce: ctx.freshPkce() });
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const res = await ctx.http.request(url);
      const policy = res.headers['referrer-policy'];
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location !== undefined) {
        const next = new URL(location, url);
        if (next.origin !== ctx.serverOrigin) return skip(`the authorization endpoint sends the browser to ${next.origin} (its pages are not this server's)`);
        url = next.href;
        continue;
      }
      const tokens = (policy ?? '').split(',').map((t) => t.trim().toLowerCase());
      if (tokens.some((t) => SAFE.has(t))) return pass(`Referrer-Policy: ${policy}`);
      return warn(policy ? `Referrer-Policy: ${policy} lets the full URL leak` : 'no Referrer-Policy on the login page (browsers default to strict-origin-when-cross-origin)');
    }
    return skip(`more than ${MAX_HOPS} redirects before a page`);
  },
};
