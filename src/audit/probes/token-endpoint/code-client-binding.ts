import { issuedTokens } from '../../exchanges.js';
import { refusedWithInvalidGrant } from '../../error-code.js';
import { fail, skip, type Probe } from '../../types.js';

/** RFC 6749 section 4.1.3: a code issued to one client is refused to another. */
export const codeClientBindingProbe: Probe = {
  id: 'code-client-binding',
  title: 'code bound to its client',
  rfc: 'RFC 6749 §4.1.3',
  needsFlow: true,
  async run(ctx) {
    const second = ctx.secondClient;
    if (!second) return skip('only one client is known; give --second-client-id (and --second-client-secret) of another registered client');
    const issued = await ctx.obtainCode();
    const stolen = await ctx.redeem(issued, {}, second);
    if (issuedTokens(stolen)) return fail(`client ${second.clientId} redeemed a code issued to ${ctx.config.clientId}`);
    return refusedWithInvalidGrant(stolen, `the code of ${ctx.config.clientId} redeemed by client ${second.clientId}`);
  },
};
