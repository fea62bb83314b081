import { ACCESS_TOKEN_TYPE, issuedTokenTypeProblem, TOKEN_EXCHANGE_GRANT } from '../../../oauth/grant-types.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * RFC 8693 section 2.2.1: a token exchange response says what it issued (issued_token_type); asked for
 * an access token, a server that hands back another type (a refresh token) makes the client use the
 * wrong kind of token as an access token. Exchanges the flow's own access token, asking for an access token.
 */
export const tokenExchangeTypeProbe: AuditProbe = {
  id: 'token-exchange-type',
  title: 'token exchange issues the requested token type',
  rfc: 'RFC 8693 §2.2.1',
  category: 'token-endpoint',
  threat: 'RFC 8693 §2.2.1',
  remedy: 'answer issued_token_type, and issue the requested_token_type or refuse the exchange (invalid_request)',
  needsFlow: true,
  async run(ctx) {
    const grants = ctx.metadata?.grant_types_supported;
    if (!Array.isArray(grants) || !grants.includes(TOKEN_EXCHANGE_GRANT)) return skip('the server does not list the token exchange grant in grant_types_supported');
    const first = await ctx.redeem(await ctx.obtainCode());
    const subjectToken = (first.json as Record<string, unknown> | undefined)?.access_token;
    if (!issuedTokens(first) || typeof subjectToken !== 'string') return skip(`no access token to exchange: ${describeExchange(first)}`);
    const exchanged = await ctx.token({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: ACCESS_TOKEN_TYPE });
    if (!issuedTokens(exchanged)) return skip(`the exchange was refused (${describeExchange(exchanged)}): this client may not exchange tokens here`);
    const problem = issuedTokenTypeProblem(ACCESS_TOKEN_TYPE, (exchanged.json as Record<string, unknown>).issued_token_type);
    return problem === undefined ? pass(`asked for an access token, issued_token_type ${ACCESS_TOKEN_TYPE}`) : fail(problem);
  },
};
