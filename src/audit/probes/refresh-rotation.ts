import { describeExchange, issuedTokens } from '../context.js';
import { fail, pass, skip, warn, type Probe } from '../types.js';

/**
 * RFC 9700 section 4.14.2: a public client's refresh tokens are rotated (or sender-constrained) and a
 * used one is refused. A confidential client's refresh token is bound to its credentials, so it need
 * not rotate.
 */
export const refreshRotationProbe: Probe = {
  id: 'refresh-rotation',
  title: 'refresh token rotated, reuse refused',
  rfc: 'RFC 9700 §4.14.2',
  needsFlow: true,
  async run(ctx) {
    const scopes = ctx.config.scopes.includes('offline_access') || !ctx.metadata?.scopes_supported?.includes('offline_access') ? ctx.config.scopes : [...ctx.config.scopes, 'offline_access'];
    const issued = await ctx.obtainCode({ scopes });
    const first = await ctx.redeem(issued);
    const refreshToken = (first.json as Record<string, unknown> | undefined)?.refresh_token;
    if (!issuedTokens(first) || typeof refreshToken !== 'string')
      return skip(`no refresh token issued (scope ${JSON.stringify(scopes.join(' '))}); add offline_access to --scope if the server grants it`);
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (!issuedTokens(refreshed)) return fail(`the refresh token did not work: ${describeExchange(refreshed)}`);
    const next = (refreshed.json as Record<string, unknown>).refresh_token;
    if (typeof next !== 'string' || next === refreshToken) {
      if (!ctx.isPublicClient) return pass('not rotated, which RFC 9700 §4.14.2 allows for a confidential client (the token is bound to its credentials)');
      return warn('the refresh token of a public client is not rotated (the same one stays valid)');
    }
    const reuse = await ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (issuedTokens(reuse)) return warn('rotated, but the old refresh token still works');
    const family = await ctx.token({ grant_type: 'refresh_token', refresh_token: next });
    const revoked = !issuedTokens(family);
    return pass(`rotated; reuse refused (${describeExchange(reuse)})${revoked ? '; the reuse also revoked the newer token' : ''}`);
  },
};
