import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.2: a request without a required parameter is refused with invalid_request, not a server error. */
export const tokenMissingCodeProbe: AuditProbe = {
  id: 'token-missing-code',
  title: 'a code request without a code is refused with invalid_request',
  rfc: 'RFC 6749 §5.2',
  category: 'token-endpoint',
  threat: 'RFC 6819 §5.2.2 (input validation at the token endpoint)',
  remedy: 'Validate the parameters of token requests; answer a missing code with HTTP 400 invalid_request.',
  async run(ctx) {
    const exchange = await ctx.token({ grant_type: 'authorization_code', redirect_uri: ctx.redirectUri });
    if (issuedTokens(exchange)) return fail('a token request without a code got tokens');
    if (exchange.status >= 500) return fail(`the server failed: ${describeExchange(exchange)}`);
    if (exchange.status !== 400 || (exchange.error?.error !== 'invalid_request' && exchange.error?.error !== 'invalid_grant'))
      return warn(`refused with ${describeExchange(exchange)}, not HTTP 400 invalid_request`);
    return pass(describeExchange(exchange));
  },
};
