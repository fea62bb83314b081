import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9700 section 4.8.2: a code issued with code_challenge is refused when no code_verifier comes. */
export const pkceDowngradeProbe: AuditProbe = {
  id: 'pkce-downgrade',
  title: 'PKCE downgrade (challenge sent, no verifier) refused',
  rfc: 'RFC 9700 §4.8.2',
  category: 'pkce',
  threat: 'RFC 9700 §4.8 (PKCE downgrade)',
  remedy: 'Refuse a token request without code_verifier when the authorization request had a code_challenge.',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode({ pkce: ctx.freshPkce('S256') });
    const exchange = await ctx.redeem(issued, { code_verifier: undefined });
    if (issuedTokens(exchange)) return fail('tokens issued without code_verifier for a code requested with code_challenge');
    return pass(`refused: ${describeExchange(exchange)}`);
  },
};
