import { endSessionEndpoint, NO_END_SESSION } from '../../sessions.js';
import type { AuditContext } from '../../context.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * OpenID Connect Core 3.1.2.1 and 3.1.2.6: prompt=none from a browser with no session shows no page and
 * answers login_required by redirect to the client (a page, or a code, would break a relying party's
 * silent sign-in check).
 */
export const promptNoneLoginRequiredProbe: AuditProbe = {
  id: 'prompt-none-login-required',
  title: 'prompt=none without a session answers login_required',
  rfc: 'OpenID Connect Core §3.1.2.6',
  category: 'sessions',
  threat: 'OpenID Connect Core §3.1.2.1 (a silent request that shows a page, or signs in someone who is not)',
  remedy: 'with prompt=none and no signed-in session, redirect to the client with error=login_required and no page',
  needsFlow: true,
  async run(ctx) {
    if (!endSessionEndpoint(ctx)) return NO_END_SESSION;
    const front = await ctx.frontChannelUrl(ctx.authorizationUrl({ extraParams: { prompt: 'none' }, pkce: ctx.usesPkce ? ctx.freshPkce() : null }));
    if (front.kind === 'push-refused') return skip(`the request could not be pushed: ${front.text}`);
    // Sent without the audit's cookies: a browser that has never signed in.
    const res = await ctx.http.request(front.url, { headers: { accept: 'text/html' } });
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || location === undefined) return fail(`HTTP ${res.status} without a redirect: prompt=none must not show a page`);
    const target = new URL(location, front.url);
    if (!target.href.startsWith(ctx.redirectUri.replace(/\/+$/, ''))) return skip(`the server sent the browser to ${target.origin}${target.pathname}, not to the client`);
    const params = target.searchParams;
    if (params.has('code')) {
      // A test server that signs every browser in with no page at all (an auto-login mock) answers a code
      // to any request: prompt=none then gets what a standing session would give, which is no weakness.
      if (await signsInWithoutAPage(ctx)) return skip('the server signs a browser in with no page at all (a test server with auto-login): a code for prompt=none is what its standing session gives');
      return fail('a code was issued with prompt=none although no one is signed in');
    }
    const error = params.get('error');
    if (error === 'login_required') return pass('redirected to the client with error=login_required');
    if (error === 'interaction_required') return warn('redirected with error=interaction_required; login_required says more (section 3.1.2.6)');
    return fail(`redirected with ${error ? `error=${error}` : 'neither code nor error'}, not login_required`);
  },
};

/** Whether an ordinary authorization request, from a browser without cookies, is answered with a code straight away. */
async function signsInWithoutAPage(ctx: AuditContext): Promise<boolean> {
  const front = await ctx.frontChannelUrl(ctx.authorizationUrl({ pkce: ctx.usesPkce ? ctx.freshPkce() : null }));
  if (front.kind !== 'url') return false;
  const res = await ctx.http.request(front.url, { headers: { accept: 'text/html' } });
  const location = res.headers.location;
  return res.status >= 300 && res.status < 400 && location !== undefined && new URL(location, front.url).searchParams.has('code');
}
