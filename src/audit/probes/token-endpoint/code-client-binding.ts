import { issuedTokens } from '../../exchanges.js';
import { refusedWithInvalidGrant } from '../../error-code.js';
import { fail, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.3: a code issued to one client is refused to another. */
export const codeClientBindingProbe: AuditProbe = {
  id: 'code-client-binding',
  title: 'code bound to its client',
  rfc: 'RFC 6749 §4.1.3',
  category: 'token-endpoint',
  threat: 'RFC 9700 §4.5 (code injection); RFC 6819 §5.2.4.4',
  remedy: 'Bind each code to the client it was issued to; refuse it for any other client.',
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
