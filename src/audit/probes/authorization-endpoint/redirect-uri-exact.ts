import type { AuthorizeOutcome } from '../../exchanges.js';
import { isLoopbackHost } from '../../../oauth/loopback.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

export interface RedirectUriVariant {
  name: string;
  uri: string;
}

/** Parameters of the authorization response (RFC 6749 section 4.1.2, RFC 9207, OpenID Connect session management). */
const RESPONSE_PARAMS = new Set(['code', 'state', 'iss', 'error', 'error_description', 'error_uri', 'session_state']);

/**
 * Variants of a registered redirect URI that RFC 9700 section 4.1.3 (exact string matching) and RFC 6749
 * section 3.1.2 (no fragment) rule out. The port of a loopback redirect URI may vary (RFC 8252 section
 * 7.3), so "other port" is tried on other hosts only; `notApplied` names the variants left out.
 */
export function redirectUriVariants(redirectUri: string): { variants: RedirectUriVariant[]; notApplied: string[] } {
  const base = new URL(redirectUri);
  const variants: RedirectUriVariant[] = [];
  const notApplied: string[] = [];
  const variant = (name: string, change: (u: URL) => void) => {
    const u = new URL(base.href);
    change(u);
    variants.push({ name, uri: u.href });
  };
  variant('changed path', (u) => (u.pathname = base.pathname.replace(/[^/]*$/, (last) => `${last || 'cb'}-changed`)));
  variant('added path segment', (u) => (u.pathname = `${base.pathname.replace(/\/$/, '')}/extra`));
  variant('added query parameter', (u) => u.searchParams.append('next', 'https://evil.example'));
  variant('fragment', (u) => (u.hash = 'oauthctl-audit'));
  if (!base.pathname.endsWith('/')) variant('trailing slash', (u) => (u.pathname = `${base.pathname}/`));
  else notApplied.push('trailing slash (the path already ends with one)');
  const letter = /[a-z]/i.exec(base.pathname);
  if (letter) {
    const i = letter.index;
    const ch = base.pathname.charAt(i);
    const flipped = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
    variant('changed case in the path', (u) => (u.pathname = `${base.pathname.slice(0, i)}${flipped}${base.pathname.slice(i + 1)}`));
  } else notApplied.push('changed case (no letter in the path)');
  variant('percent-encoded separators', (u) => (u.pathname = `${base.pathname.replace(/\/$/, '')}%2F..%2Fother%3Fx`));
  if (base.host !== '') {
    variant('other host', (u) => (u.hostname = 'oauthctl-audit.invalid'));
    variant('user-info in the authority', (u) => (u.username = 'evil.example'));
    if (isLoopbackHost(base.hostname)) notApplied.push('other port (a loopback redirect URI may use any port, RFC 8252 §7.3)');
    else variant('other port', (u) => (u.port = String(Number(base.port || (base.protocol === 'https:' ? 443 : 80)) === 8443 ? 8444 : 8443)));
  }
  if (base.protocol === 'http:' || base.protocol === 'https:') {
    variants.push({ name: 'other scheme', uri: new URL(base.href.replace(/^https?:/, base.protocol === 'http:' ? 'https:' : 'http:')).href });
  }
  return { variants, notApplied };
}

/** The redirect's target without the response parameters (in the query, or a fragment that holds them): where the server really sent the user agent. */
function landing(url: string): string {
  const u = new URL(url);
  for (const name of [...u.searchParams.keys()]) if (RESPONSE_PARAMS.has(name)) u.searchParams.delete(name);
  if (u.hash.includes('=')) u.hash = '';
  return u.href.replace(/\?(#|$)/, '$1');
}

/**
 * RFC 9700 section 4.1.3 and RFC 6749 section 3.1.2.3: the redirect URI is compared exactly; a variant
 * gets an error page, never a redirect (section 4.1.2.1). The audit stops at the redirect and never
 * visits the other host. A redirect to the registered URI itself (the variant ignored) is no failure.
 */
export const redirectUriExactProbe: AuditProbe = {
  id: 'redirect-uri-exact',
  title: 'redirect URI matched exactly',
  rfc: 'RFC 9700 §4.1.3',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.1 (insufficient redirect URI validation)',
  remedy: 'Compare redirect URIs by exact string match (loopback ports aside, RFC 8252 §7.3).',
  needsFlow: true,
  async run(ctx) {
    const { variants, notApplied } = redirectUriVariants(ctx.redirectUri);
    if (variants.length === 0) return skip('no variants of this redirect URI to try');
    const accepted: string[] = [];
    const refused: string[] = [];
    for (const variant of variants) {
      const outcome: AuthorizeOutcome = await ctx.authorize({ redirectUri: variant.uri, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
      if (outcome.kind !== 'redirect') {
        refused.push(variant.name);
        continue;
      }
      if (landing(outcome.url) === new URL(ctx.redirectUri).href) {
        refused.push(`${variant.name} (sent to the registered URI)`);
        continue;
      }
      accepted.push(`${variant.name} (${variant.uri}) got a redirect${outcome.params.code ? ' with a code' : outcome.params.error ? ` with error=${outcome.params.error}` : ''}`);
    }
    const skipped = notApplied.length > 0 ? `; not applied: ${notApplied.join('; ')}` : '';
    // RFC 9126 section 2.4: a server MAY let a client that authenticated its pushed request use an unregistered redirect URI.
    if (accepted.length > 0 && ctx.pushesRequests && !ctx.isPublicClient) return warn(`${accepted.join('; ')} (pushed by an authenticated client, which RFC 9126 §2.4 lets a server allow)${skipped}`);
    if (accepted.length > 0) return fail(`${accepted.join('; ')}${skipped}`);
    return pass(`no redirect for ${refused.join(', ')}${skipped}`);
  },
};
