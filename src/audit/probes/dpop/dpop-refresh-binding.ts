import { generateDpopKey } from '../../../client/flows/keys.js';
import { createDpopProof } from '../../../oauth/dpop.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, nonceAsked, redeemWithProof } from '../../dpop-requests.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 9449 section 5: a public client's refresh token is bound to its DPoP key; a proof of another key does not refresh it. */
export const dpopRefreshBindingProbe: AuditProbe = {
  id: 'dpop-refresh-binding',
  title: "a public client's DPoP-bound refresh token does not work with another key",
  rfc: 'RFC 9449 §5',
  category: 'dpop',
  threat: 'RFC 9700 §4.14 (refresh token leakage)',
  remedy: 'Bind refresh tokens of public clients to the DPoP key and check the proof of every refresh.',
  needsFlow: true,
  async run(ctx) {
    if (!ctx.isPublicClient) return skip(`${ctx.config.clientId} is confidential: its refresh tokens are bound by client authentication`);
    const { exchange } = await redeemWithProof(ctx, await dpopKeyFor(ctx), await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(exchange)}`);
    const refreshToken = (exchange.json as Record<string, unknown>).refresh_token;
    if (typeof refreshToken !== 'string') return skip('no refresh token was issued (ask for offline_access in --scope)');
    const other = await generateDpopKey();
    const refresh = async (nonce?: string) =>
      ctx.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, undefined, { headers: { dpop: await createDpopProof(other, { htm: 'POST', htu: ctx.config.tokenEndpoint, nonce }) } });
    let attempt = await refresh();
    const nonce = nonceAsked(attempt);
    if (nonce !== undefined) attempt = await refresh(nonce);
    if (issuedTokens(attempt)) return fail('the refresh token worked with a proof of another key');
    return pass(`refused with another key: ${describeExchange(attempt)}`);
  },
};
