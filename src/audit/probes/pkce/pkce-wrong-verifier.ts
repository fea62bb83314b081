import { issuedTokens } from '../../exchanges.js';
import { refusedWithInvalidGrant } from '../../error-code.js';
import { generateCodeVerifier } from '../../../oauth/pkce.js';
import { fail, type AuditProbe } from '../../types.js';

/** RFC 7636 section 4.6: the server recomputes the challenge from the verifier; a wrong one is refused with invalid_grant. */
export const pkceWrongVerifierProbe: AuditProbe = {
  id: 'pkce-wrong-verifier',
  title: 'wrong PKCE code_verifier refused',
  rfc: 'RFC 7636 §4.6',
  category: 'pkce',
  threat: 'RFC 7636 §1 (code interception)',
  remedy: 'Compare the code_verifier with the stored code_challenge and refuse a mismatch with invalid_grant.',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode({ pkce: ctx.freshPkce('S256') });
    const exchange = await ctx.redeem(issued, { code_verifier: generateCodeVerifier() });
    if (issuedTokens(exchange)) return fail('tokens issued for a code_verifier that does not match the code_challenge');
    return refusedWithInvalidGrant(exchange, 'wrong code_verifier');
  },
};
