import { requireJwtClient } from '../../client-assertions.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 7523 section 3 item 3: a client assertion whose aud does not name this server is refused. */
export const clientAssertionAudienceProbe: AuditProbe = {
  id: 'client-assertion-audience',
  title: 'a client assertion for another audience is refused',
  rfc: 'RFC 7523 §3',
  category: 'client-authentication',
  threat: 'RFC 7523 §3 item 3 (assertion for another server)',
  remedy: 'Refuse client assertions whose aud is not this server (its issuer or token endpoint).',
  needsFlow: true,
  async run(ctx) {
    requireJwtClient(ctx);
    const aud = 'https://oauthctl-audit.invalid/';
    const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: await ctx.clientAssertion(ctx.client, { aud }) });
    if (issuedTokens(exchange)) return fail(`tokens issued for a client assertion with aud=${aud}`);
    return pass(`aud=${aud} refused: ${describeExchange(exchange)}`);
  },
};
