import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type Probe } from '../../types.js';

/** RFC 9700 section 4.8.2: a code issued with code_challenge is refused when no code_verifier comes. */
export const pkceDowngradeProbe: Probe = {
  id: 'pkce-downgrade',
  title: 'PKCE downgrade (challenge sent, no verifier) refused',
  rfc: 'RFC 9700 §4.8.2',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode({ pkce: ctx.freshPkce('S256') });
    const exchange = await ctx.redeem(issued, { code_verifier: undefined });
    if (issuedTokens(exchange)) return fail('tokens issued without code_verifier for a code requested with code_challenge');
    return pass(`refused: ${describeExchange(exchange)}`);
  },
};
