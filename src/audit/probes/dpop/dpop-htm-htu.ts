import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, redeemWithProof } from '../../dpop-requests.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9449 section 4.3: a proof whose htm or htu is not this request's is refused. */
export const dpopHtmHtuProbe: AuditProbe = {
  id: 'dpop-htm-htu',
  title: 'a DPoP proof for another method or URI is refused',
  rfc: 'RFC 9449 §4.3',
  category: 'dpop',
  threat: 'RFC 9449 §4.3 (proof for another request)',
  remedy: 'Check that a proof’s htm and htu match the request it comes with.',
  needsFlow: true,
  async run(ctx) {
    const key = await dpopKeyFor(ctx);
    const wrongUri = new URL('/oauthctl-audit/other', ctx.config.tokenEndpoint).href;
    const accepted: string[] = [];
    const refused: string[] = [];
    for (const [what, change] of [
      ['htm=GET', { htm: 'GET' }],
      [`htu=${wrongUri}`, { htu: wrongUri }],
    ] as const) {
      const { exchange } = await redeemWithProof(ctx, key, await ctx.obtainCode(), change);
      if (issuedTokens(exchange)) accepted.push(what);
      else refused.push(`${what}: ${describeExchange(exchange)}`);
    }
    if (accepted.length > 0) return fail(`tokens issued with a proof for the wrong request (${accepted.join('; ')})`);
    return pass(`refused: ${refused.join('; ')}`);
  },
};
