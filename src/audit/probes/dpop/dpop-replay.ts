import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, redeemWithProof } from '../../dpop-requests.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9449 section 11.1: a proof is for one request; the same proof (jti) again is refused. */
export const dpopReplayProbe: AuditProbe = {
  id: 'dpop-replay',
  title: 'a replayed DPoP proof is refused',
  rfc: 'RFC 9449 §11.1',
  category: 'dpop',
  threat: 'RFC 9449 §11.1 (proof replay)',
  remedy: 'Track the jti of DPoP proofs within their lifetime and refuse a repeated one.',
  needsFlow: true,
  async run(ctx) {
    const key = await dpopKeyFor(ctx);
    const first = await redeemWithProof(ctx, key, await ctx.obtainCode());
    if (!issuedTokens(first.exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(first.exchange)}`);
    const replay = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { headers: { dpop: first.proof } });
    if (issuedTokens(replay)) return fail('the same DPoP proof (same jti) was accepted for a second token request');
    return pass(`the replayed proof was refused: ${describeExchange(replay)}`);
  },
};
