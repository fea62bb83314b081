import { accountOf } from '../../account.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9700 section 2.4: the resource owner password credentials grant MUST NOT be used. */
export const tokenPasswordGrantProbe: AuditProbe = {
  id: 'token-password-grant',
  title: 'the password grant is refused',
  rfc: 'RFC 9700 §2.4',
  category: 'token-endpoint',
  threat: 'RFC 9700 §2.4 (the client handles the password); RFC 6819 §4.4.3',
  remedy: 'Turn off the resource owner password credentials grant.',
  async run(ctx) {
    const { username, password } = accountOf(ctx);
    const exchange = await ctx.token({ grant_type: 'password', username, password, scope: ctx.config.scopes.join(' ') || undefined });
    if (issuedTokens(exchange)) return fail("the user's password got tokens at the token endpoint");
    const error = exchange.error?.error;
    if (error === 'unsupported_grant_type' || error === 'unauthorized_client') return pass(describeExchange(exchange));
    return warn(`refused with ${describeExchange(exchange)}: the grant may be on for other clients or accounts`);
  },
};
