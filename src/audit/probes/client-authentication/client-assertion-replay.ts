import { requireJwtClient } from '../../client-assertions.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 7523 section 3 item 7 (and RFC 7521 section 5.2): a client assertion's jti is used once. */
export const clientAssertionReplayProbe: AuditProbe = {
  id: 'client-assertion-replay',
  title: 'a replayed client assertion is refused',
  rfc: 'RFC 7523 §3',
  category: 'client-authentication',
  threat: 'RFC 7523 §3 item 7; RFC 6819 §4.3.5',
  remedy: 'Remember the jti of client assertions until they expire and refuse a repeated one.',
  needsFlow: true,
  async run(ctx) {
    requireJwtClient(ctx);
    const assertion = await ctx.clientAssertion();
    const first = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: assertion });
    if (!issuedTokens(first)) return fail(`a fresh client assertion was refused: ${describeExchange(first)}`);
    const replay = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: assertion });
    // RFC 7523 lets the server choose (MAY); OpenID Connect and FAPI expect the jti to be checked.
    if (issuedTokens(replay)) return warn('the same client assertion (same jti) authenticated a second token request');
    return pass(`the replayed assertion was refused: ${describeExchange(replay)}`);
  },
};
