import { describeExchange, issuedTokens } from '../../exchanges.js';
import { freshTokens } from '../../fresh-tokens.js';
import { describeResponse } from '../../outcomes.js';
import { revoke } from '../../token-management.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2.1: a revoked refresh token no longer refreshes. */
export const revocationRefreshTokenProbe: AuditProbe = {
  id: 'revocation-refresh-token',
  title: 'a revoked refresh token no longer refreshes',
  rfc: 'RFC 7009 §2.1',
  category: 'revocation',
  threat: 'RFC 6819 §5.2.2.4 (revocation of stolen refresh tokens)',
  remedy: 'Invalidate a revoked refresh token at once (and the access tokens of its grant).',
  needsFlow: true,
  async run(ctx) {
    const { body } = await freshTokens(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const res = await revoke(ctx, body.refresh_token, 'refresh_token');
    if (res.status !== 200) return fail(`the revocation request was refused: ${describeResponse(res.status, res.body)}`);
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token });
    if (issuedTokens(refreshed)) return fail('the revoked refresh token still refreshes');
    return pass(`revoked; refresh refused: ${describeExchange(refreshed)}`);
  },
};
