import { describeExchange, issuedTokens } from '../../exchanges.js';
import { freshTokens } from '../../fresh-tokens.js';
import { revoke } from '../../token-management.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 7009 section 2.1: the server checks that the token was issued to the client asking for its revocation. */
export const revocationOtherClientProbe: AuditProbe = {
  id: 'revocation-other-client',
  title: "another client cannot revoke this client's refresh token",
  rfc: 'RFC 7009 §2.1',
  category: 'revocation',
  threat: 'RFC 7009 §5 (denial of service by revoking tokens of others)',
  remedy: 'Revoke a token only for the client it was issued to.',
  needsFlow: true,
  async run(ctx) {
    if (!ctx.secondClient) return skip('no second client (give --second-client-id and --second-client-secret)');
    const { body } = await freshTokens(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    await revoke(ctx, body.refresh_token, 'refresh_token', ctx.secondClient);
    const refreshed = await ctx.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token });
    if (!issuedTokens(refreshed)) return fail(`client ${ctx.secondClient.clientId} revoked a refresh token of ${ctx.config.clientId}: ${describeExchange(refreshed)}`);
    return pass(`the refresh token survived a revocation by ${ctx.secondClient.clientId}`);
  },
};
