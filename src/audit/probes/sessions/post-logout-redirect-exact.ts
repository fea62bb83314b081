import { endSessionEndpoint, NO_END_SESSION } from '../../sessions.js';
import { fail, pass, type AuditProbe } from '../../types.js';

const UNREGISTERED = 'https://oauthctl-audit.invalid/post-logout';

/**
 * RP-Initiated Logout 1.0 section 3 (and RFC 9700 section 4.11.2's open redirector): the end_session_endpoint
 * sends the browser only to a post_logout_redirect_uri registered for the client, matched exactly; an
 * unregistered one, or the registered redirect URI with text added, gets no redirect.
 */
export const postLogoutRedirectExactProbe: AuditProbe = {
  id: 'post-logout-redirect-exact',
  title: 'post_logout_redirect_uri matched exactly',
  rfc: 'OpenID Connect RP-Initiated Logout 1.0 §3',
  category: 'sessions',
  threat: 'RFC 9700 §4.11.2 (open redirector at the end_session_endpoint)',
  remedy: 'redirect after logout only to a post_logout_redirect_uri registered for the client, compared as a whole string (any port on loopback only); else show an error page',
  needsFlow: true,
  async run(ctx) {
    const endpoint = endSessionEndpoint(ctx);
    if (!endpoint) return NO_END_SESSION;
    const tries = [UNREGISTERED, `${ctx.redirectUri}.oauthctl-audit.invalid`, `${ctx.redirectUri}/..%2F..%2Fevil`];
    for (const uri of tries) {
      const url = new URL(endpoint);
      url.searchParams.set('client_id', ctx.config.clientId);
      url.searchParams.set('post_logout_redirect_uri', uri);
      url.searchParams.set('state', 'oauthctl-audit');
      const res = await ctx.http.request(url.href, { headers: { accept: 'text/html' } });
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location !== undefined && new URL(location, url).href.startsWith(uri)) {
        return fail(`the end_session_endpoint redirected to the unregistered post_logout_redirect_uri ${uri}`);
      }
    }
    return pass(`no redirect to ${tries.length} unregistered post_logout_redirect_uri values (another host, the redirect URI with text appended or dot segments)`);
  },
};
