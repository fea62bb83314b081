import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.2: a code the server never issued is refused with invalid_grant. */
export const tokenInvalidCodeProbe: AuditProbe = {
  id: 'token-invalid-code',
  title: 'a made-up code is refused with invalid_grant',
  rfc: 'RFC 6749 §5.2',
  category: 'token-endpoint',
  threat: 'RFC 6819 §4.4.1.3 (guessing authorization codes)',
  remedy: 'Refuse unknown codes with HTTP 400 invalid_grant.',
  async run(ctx) {
    const pkce = ctx.usesPkce ? ctx.freshPkce() : undefined;
    const exchange = await ctx.redeem({ code: 'oauthctl-audit-made-up-code-0123456789', redirectUri: ctx.redirectUri, pkce, params: {} });
    if (issuedTokens(exchange)) return fail('a made-up code got tokens');
    if (exchange.status >= 500) return fail(`the server failed: ${describeExchange(exchange)}`);
    if (exchange.status !== 400 || exchange.error?.error !== 'invalid_grant') return warn(`refused with ${describeExchange(exchange)}, not HTTP 400 invalid_grant`);
    return pass(describeExchange(exchange));
  },
};
