import { requireJwtClient } from '../../client-assertions.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** FAPI 2.0 Security Profile section 5.3.2.1: the issuer identifier is the only aud a client assertion may have. */
export const fapi2AssertionAudienceProbe: AuditProbe = {
  id: 'fapi2-assertion-audience',
  title: 'a client assertion whose aud is the token endpoint URL is refused',
  rfc: 'FAPI 2.0 SP §5.3.2.1',
  category: 'fapi2',
  threat: "audience injection (RFC 7523 as updated): an assertion made for one server's endpoint, replayed at another",
  remedy: 'Accept only the issuer identifier as the aud of private_key_jwt assertions (RFC 7523 as updated by the FAPI profile).',
  needsFlow: true,
  async run(ctx) {
    requireJwtClient(ctx);
    if (ctx.issuer === undefined) return skip('the issuer is not known');
    const aud = ctx.config.tokenEndpoint;
    if (aud === ctx.issuer) return skip('the token endpoint URL is the issuer itself');
    const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: await ctx.clientAssertion(ctx.client, { aud }) });
    if (issuedTokens(exchange)) return fail(`tokens issued for a client assertion with aud=${aud}, not the issuer`);
    return pass(`aud=${aud} refused: ${describeExchange(exchange)}`);
  },
};
