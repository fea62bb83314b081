import { describeExchange, issuedTokens } from '../../exchanges.js';
import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 6 and RFC 9700 section 4.14.2: a refresh token works only for the client it was issued to. */
export const refreshTokenClientBindingProbe: AuditProbe = {
  id: 'refresh-token-client-binding',
  title: 'a refresh token works only for its own client',
  rfc: 'RFC 6749 §6',
  category: 'tokens',
  threat: 'RFC 6819 §4.5.4 (refresh token used by another client); RFC 9700 §4.14',
  remedy: 'Bind refresh tokens to their client and refuse them, with invalid_grant, to any other.',
  needsFlow: true,
  async run(ctx) {
    if (!ctx.secondClient) return skip('no second client (give --second-client-id and --second-client-secret)');
    const { body } = await freshTokens(ctx);
    if (typeof body.refresh_token !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const stolen = await ctx.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token }, ctx.secondClient);
    if (issuedTokens(stolen)) return fail(`client ${ctx.secondClient.clientId} refreshed a token issued to ${ctx.config.clientId}`);
    return pass(`refused for ${ctx.secondClient.clientId}: ${describeExchange(stolen)}`);
  },
};
