import { describeExchange, issuedTokens } from '../context.js';
import { fail, pass, warn, type Probe } from '../types.js';

/** RFC 6749 sections 4.1.2 and 10.5: an authorization code is redeemed once; a second use is refused. */
export const codeSingleUseProbe: Probe = {
  id: 'code-single-use',
  title: 'authorization code works once only',
  rfc: 'RFC 6749 §4.1.2',
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode();
    const first = await ctx.redeem(issued);
    if (!issuedTokens(first)) return fail(`the first use was refused: ${describeExchange(first)}`);
    const second = await ctx.redeem(issued);
    if (issuedTokens(second)) return fail('the second use of the same code got tokens again');
    if (second.error?.error !== 'invalid_grant') return warn(`the second use was refused, but with ${describeExchange(second)} instead of invalid_grant`);
    return pass(`second use refused: ${describeExchange(second)}`);
  },
};
