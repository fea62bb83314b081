import { describeExchange, issuedTokens } from '../../exchanges.js';
import { FAPI2_MAX_CODE_SECONDS } from '../../../oauth/fapi2.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** FAPI 2.0 Security Profile section 5.3.2.1: an authorization code lives at most 60 seconds (the probe waits 61). */
export const fapi2CodeLifetimeProbe: AuditProbe = {
  id: 'fapi2-code-lifetime',
  title: 'an authorization code is refused 61 s after it was issued',
  rfc: 'FAPI 2.0 SP §5.3.2.1',
  category: 'fapi2',
  threat: 'RFC 9700 §4.5 (a leaked code is usable for as long as it lives)',
  remedy: `Let authorization codes expire within ${FAPI2_MAX_CODE_SECONDS} seconds.`,
  needsFlow: true,
  async run(ctx) {
    const issued = await ctx.obtainCode();
    const wait = FAPI2_MAX_CODE_SECONDS + 1;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    const exchange = await ctx.redeem(issued);
    if (issuedTokens(exchange)) return fail(`a code was redeemed ${wait} s after it was issued`);
    return pass(`refused after ${wait} s: ${describeExchange(exchange)}`);
  },
};
