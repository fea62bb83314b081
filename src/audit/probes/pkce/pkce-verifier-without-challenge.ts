import { randomBytes } from 'node:crypto';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * RFC 9700 section 2.1.1: "if there was no code_challenge in the authorization request, a request to
 * the token endpoint containing a code_verifier is rejected" (the PKCE downgrade countermeasure).
 */
export const pkceVerifierWithoutChallengeProbe: AuditProbe = {
  id: 'pkce-verifier-without-challenge',
  title: 'a code_verifier is refused for a code requested without code_challenge',
  rfc: 'RFC 9700 §2.1.1',
  category: 'pkce',
  threat: 'RFC 9700 §4.8 (PKCE downgrade attack)',
  remedy: 'Refuse a token request with code_verifier when the authorization request had no code_challenge.',
  needsFlow: true,
  async run(ctx) {
    let issued;
    try {
      issued = await ctx.obtainCode({ pkce: null });
    } catch (err) {
      return skip(`a code without code_challenge is not issued to ${ctx.config.clientId} (${(err as Error).message}): the downgrade cannot start`);
    }
    const exchange = await ctx.redeem(issued, { code_verifier: randomBytes(32).toString('base64url') });
    if (issuedTokens(exchange)) return fail('a code issued without code_challenge was redeemed with a code_verifier');
    return pass(`refused: ${describeExchange(exchange)}`);
  },
};
