import { fail, pass, skip, type Probe } from '../types.js';

/**
 * RFC 9700 section 4.1.3 and RFC 6749 section 3.1.2.3: the redirect URI is compared exactly. A changed
 * path, an added path segment, another host and another scheme must get an error page, never a
 * redirect (section 4.1.2.1). The audit stops at the redirect and never visits the other host.
 */
export function redirectUriVariants(redirectUri: string): { name: string; uri: string }[] {
  const base = new URL(redirectUri);
  const variants: { name: string; uri: string }[] = [];
  const path = new URL(base.href);
  path.pathname = base.pathname.replace(/[^/]*$/, (last) => `${last || 'cb'}-changed`);
  variants.push({ name: 'changed path', uri: path.href });
  const segment = new URL(base.href);
  segment.pathname = `${base.pathname.replace(/\/$/, '')}/extra`;
  variants.push({ name: 'added path segment', uri: segment.href });
  if (base.host !== '') {
    const host = new URL(base.href);
    host.hostname = 'oauthctl-audit.invalid';
    variants.push({ name: 'other host', uri: host.href });
  }
  if (base.protocol === 'http:' || base.protocol === 'https:') {
    const scheme = new URL(base.href.replace(/^https?:/, base.protocol === 'http:' ? 'https:' : 'http:'));
    variants.push({ name: 'other scheme', uri: scheme.href });
  }
  return variants;
}

export const redirectUriExactProbe: Probe = {
  id: 'redirect-uri-exact',
  title: 'redirect URI matched exactly',
  rfc: 'RFC 9700 §4.1.3',
  needsFlow: true,
  async run(ctx) {
    const variants = redirectUriVariants(ctx.redirectUri);
    if (variants.length === 0) return skip('no variants of this redirect URI to try');
    const accepted: string[] = [];
    const refused: string[] = [];
    for (const variant of variants) {
      const outcome = await ctx.authorize({ redirectUri: variant.uri, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
      if (outcome.kind === 'redirect')
        accepted.push(`${variant.name} (${variant.uri}) got a redirect${outcome.params.code ? ' with a code' : outcome.params.error ? ` with error=${outcome.params.error}` : ''}`);
      else refused.push(variant.name);
    }
    if (accepted.length > 0) return fail(accepted.join('; '));
    return pass(`no redirect for ${refused.join(', ')}`);
  },
};
