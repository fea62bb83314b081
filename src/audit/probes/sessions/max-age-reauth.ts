import { ProbeFailure } from '../../probe-errors.js';
import { endSessionEndpoint, idTokenOf, NO_END_SESSION, openidScopes } from '../../sessions.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** auth_time is in whole seconds: the second sign-in must land in a later second. */
const WAIT_MS = 1100;

/**
 * OpenID Connect Core 3.1.2.1: max_age=0 makes the user sign in again, so the ID token's auth_time is
 * a new one (and present, since max_age was sent). A server that ignores max_age lets an old sign-in
 * pass for a fresh one.
 */
export const maxAgeReauthProbe: AuditProbe = {
  id: 'max-age-reauth',
  title: 'max_age=0 forces a new authentication',
  rfc: 'OpenID Connect Core §3.1.2.1',
  category: 'sessions',
  threat: 'OpenID Connect Core §3.1.2.1 (a stale authentication passed off as a fresh one)',
  remedy: 'when the session is older than max_age, authenticate the user again and put the new auth_time in the ID token',
  needsFlow: true,
  async run(ctx) {
    if (!endSessionEndpoint(ctx)) return NO_END_SESSION;
    const scopes = openidScopes(ctx);
    if (!scopes) return skip('the server does not support the openid scope');
    // A max_age the session meets: auth_time must then be in the ID token (OpenID Connect Core 2).
    const first = idTokenOf(await ctx.redeem(await ctx.obtainCode({ scopes, extraParams: { max_age: '86400' } })));
    if (typeof first?.claims.auth_time !== 'number') return skip('the first ID token has no auth_time to compare with');
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
    const second = idTokenOf(await ctx.redeem(await ctx.obtainCode({ scopes, extraParams: { max_age: '0' } })));
    if (!second) throw new ProbeFailure('the token response after max_age=0 has no ID token');
    const authTime = second.claims.auth_time;
    if (typeof authTime !== 'number') return fail('the ID token after max_age=0 has no auth_time, which it must then have (OpenID Connect Core 2)');
    if (authTime <= first.claims.auth_time) return fail(`auth_time stayed ${authTime}: max_age=0 did not make the user sign in again`);
    return pass(`auth_time moved from ${first.claims.auth_time} to ${authTime}`);
  },
};
