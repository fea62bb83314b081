import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

const refreshTokenOf = (json: unknown): string | undefined => {
  const value = (json as Record<string, unknown> | undefined)?.refresh_token;
  return typeof value === 'string' ? value : undefined;
};

/**
 * RFC 9700 section 4.14.2: a public client's refresh tokens are rotated or sender-constrained (DPoP,
 * mTLS); a rotated one that comes back is refused and its whole family, the active token included,
 * revoked. A confidential client's refresh token is bound to its credentials: it need not rotate, and
 * the FAPI 2.0 Security Profile lets the previous one keep working when the server rotates.
 */
export const refreshRotationProbe: AuditProbe = {
  id: 'refresh-rotation',
  title: 'refresh token rotated, reuse refused',
  rfc: 'RFC 9700 §4.14.2',
  category: 'tokens',
  threat: 'RFC 9700 §4.14 (refresh token leakage)',
  remedy: 'Rotate refresh tokens of public clients and revoke the family when an old one is used again.',
  needsFlow: true,
  async run(ctx) {
    const scopes = ctx.config.scopes.includes('offline_access') || !ctx.metadata?.scopes_supported?.includes('offline_access') ? ctx.config.scopes : [...ctx.config.scopes, 'offline_access'];
    const issued = await ctx.obtainCode({ scopes });
    const first = await ctx.redeem(issued);
    const refreshToken = refreshTokenOf(first.json);
    if (!issuedTokens(first) || refreshToken === undefined) {
      const hint = scopes.includes('offline_access')
        ? 'offline_access was asked for and not granted; some servers grant it only with --param prompt=consent'
        : 'add offline_access to --scope if the server grants it';
      return skip(`no refresh token issued (scope ${JSON.stringify(scopes.join(' '))}); ${hint}`);
    }
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (!issuedTokens(refreshed)) return fail(`the refresh token did not work: ${describeExchange(refreshed)}`);
    const next = refreshTokenOf(refreshed.json);
    if (next === undefined || next === refreshToken) {
      if (!ctx.isPublicClient) return pass('not rotated, which RFC 9700 §4.14.2 allows for a confidential client (the token is bound to its credentials)');
      const tokenType = (refreshed.json as Record<string, unknown>).token_type;
      if (typeof tokenType === 'string' && tokenType.toLowerCase() === 'dpop') return pass('not rotated, but sender-constrained (token_type DPoP, RFC 9449 §5)');
      return fail('the refresh token of a public client is neither rotated nor sender-constrained (the same one stays valid)');
    }
    const reuse = await ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (issuedTokens(reuse)) {
      if (!ctx.isPublicClient) return pass('rotated; the previous refresh token still works, which FAPI 2.0 allows a confidential client');
      return warn('rotated, but the old refresh token still works (a reuse grace period?)');
    }
    const newest = await ctx.token({ grant_type: 'refresh_token', refresh_token: next });
    const reused = `rotated; reuse refused (${describeExchange(reuse)})`;
    if (!issuedTokens(newest)) return pass(`${reused}; the reuse also revoked the newest refresh token`);
    if (!ctx.isPublicClient) return pass(`${reused}; the newest refresh token survived the reuse (family revocation is asked of public clients' tokens)`);
    return warn(`${reused}, but the newest refresh token still works after the reuse (RFC 9700 §4.14.2: the active token is revoked with its family)`);
  },
};
