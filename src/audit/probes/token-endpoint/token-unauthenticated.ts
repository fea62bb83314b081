import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 sections 3.2.1 and 4.1.3: a confidential client authenticates at the token endpoint; without it, no tokens. */
export const tokenUnauthenticatedProbe: AuditProbe = {
  id: 'token-unauthenticated',
  title: "a confidential client's code is not redeemed without client authentication",
  rfc: 'RFC 6749 §4.1.3',
  category: 'token-endpoint',
  threat: 'RFC 6819 §4.4.1.1 (a stolen code redeemed without the client secret)',
  remedy: 'Require the registered client authentication of confidential clients at the token endpoint.',
  needsFlow: true,
  async run(ctx) {
    if (ctx.isPublicClient) return skip(`${ctx.config.clientId} is a public client: it has no authentication to leave out`);
    const exchange = await ctx.redeem(await ctx.obtainCode(), { client_id: ctx.config.clientId }, { clientId: ctx.config.clientId, authMethod: 'none' });
    if (issuedTokens(exchange)) return fail(`a code of ${ctx.config.clientId} was redeemed with its client_id alone`);
    return pass(`refused without authentication: ${describeExchange(exchange)}`);
  },
};
