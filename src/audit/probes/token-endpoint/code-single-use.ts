import { describeExchange, issuedTokens } from '../../exchanges.js';
import { refusedWithInvalidGrant } from '../../error-code.js';
import { checkLiveness, tokensOf } from '../../token-liveness.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/**
 * RFC 6749 sections 4.1.2 and 10.5: an authorization code is redeemed once; a second use is refused
 * and the tokens issued for the first use SHOULD be revoked.
 */
export const codeSingleUseProbe: AuditProbe = {
  id: 'code-single-use',
  title: 'authorization code works once only',
  rfc: 'RFC 6749 §4.1.2',
  category: 'token-endpoint',
  threat: 'RFC 9700 §4.5 (code injection); RFC 6819 §4.4.1.1',
  remedy: 'Refuse a second redemption of a code with invalid_grant and revoke the tokens its first use issued.',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode();
    const first = await ctx.redeem(issued);
    const tokens = tokensOf(first.json);
    if (!issuedTokens(first) || !tokens) return fail(`the first use was refused: ${describeExchange(first)}`);
    const second = await ctx.redeem(issued);
    if (issuedTokens(second)) return fail('the second use of the same code got tokens again');
    const liveness = await checkLiveness(ctx, tokens);
    const verdict = refusedWithInvalidGrant(second, 'second use');
    if (liveness.valid === true) return warn(`${verdict.detail}; but the tokens of the first use stay valid after the reuse (${liveness.how}; RFC 6749 §4.1.2: SHOULD be revoked)`);
    const revoked = liveness.valid === false ? `; the tokens of the first use were revoked (${liveness.how})` : `; whether the first tokens were revoked is unknown (${liveness.how})`;
    return verdict.status === 'pass' ? pass(`${verdict.detail}${revoked}`) : warn(`${verdict.detail}${revoked}`);
  },
};
