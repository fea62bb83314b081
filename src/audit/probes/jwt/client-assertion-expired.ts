import { requireJwtClient } from '../../client-assertions.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 7523 section 3 item 4: an expired client assertion is refused. */
export const clientAssertionExpiredProbe: AuditProbe = {
  id: 'client-assertion-expired',
  title: 'an expired client assertion is refused',
  rfc: 'RFC 7523 §3',
  category: 'jwt',
  threat: 'RFC 7523 §3 item 4; RFC 8725 §3.10',
  remedy: 'Check exp of client assertions and refuse expired ones.',
  needsFlow: true,
  async run(ctx) {
    requireJwtClient(ctx);
    const now = Math.floor(Date.now() / 1000);
    const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: await ctx.clientAssertion(ctx.client, { iat: now - 900, exp: now - 600 }) });
    if (issuedTokens(exchange)) return fail('tokens issued for a client assertion that expired 10 minutes ago');
    return pass(`an assertion expired 10 minutes ago was refused: ${describeExchange(exchange)}`);
  },
};
