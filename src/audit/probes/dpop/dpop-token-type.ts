import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, redeemWithProof } from '../../dpop-requests.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9449 section 5: a token bound to the proof's key comes with token_type DPoP. */
export const dpopTokenTypeProbe: AuditProbe = {
  id: 'dpop-token-type',
  title: 'a token request with a DPoP proof gets token_type DPoP',
  rfc: 'RFC 9449 §5',
  category: 'dpop',
  threat: 'RFC 9700 §4.10.1 (stolen bearer tokens); RFC 9449 §1',
  remedy: 'Bind the access token to the proof key and answer token_type DPoP.',
  needsFlow: true,
  async run(ctx) {
    const { exchange } = await redeemWithProof(ctx, await dpopKeyFor(ctx), await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(exchange)}`);
    const type = String((exchange.json as Record<string, unknown>).token_type);
    if (type.toLowerCase() === 'dpop') return pass(`token_type ${type}`);
    return warn(`token_type ${JSON.stringify(type)}: the proof was ignored, the token is a bearer token anyone holding it can use`);
  },
};
