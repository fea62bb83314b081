import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { dpopKeyFor, redeemWithProof } from '../../dpop-requests.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 9449 section 6.1: a JWT access token bound by DPoP carries cnf.jkt, the thumbprint of the proof's key. */
export const dpopCnfJktProbe: AuditProbe = {
  id: 'dpop-cnf-jkt',
  title: 'a DPoP-bound JWT access token names the proof key (cnf.jkt)',
  rfc: 'RFC 9449 §6.1',
  category: 'dpop',
  threat: 'RFC 9449 §7.1 (a resource server cannot check a binding it cannot see)',
  remedy: 'Put cnf.jkt, the JWK SHA-256 thumbprint of the proof key, in DPoP-bound JWT access tokens.',
  needsFlow: true,
  async run(ctx) {
    const key = await dpopKeyFor(ctx);
    const { exchange } = await redeemWithProof(ctx, key, await ctx.obtainCode());
    if (!issuedTokens(exchange)) return fail(`a token request with a valid DPoP proof was refused: ${describeExchange(exchange)}`);
    const body = exchange.json as Record<string, unknown>;
    if (String(body.token_type).toLowerCase() !== 'dpop') return skip(`the token is not DPoP-bound (token_type ${String(body.token_type)}); see dpop-token-type`);
    const claims = decodeJwtUnverified(String(body.access_token))?.claims;
    if (!claims) return skip('the access token is opaque: its binding is for the resource server to look up (introspection cnf, RFC 9449 §6.2)');
    const jkt = (claims.cnf as Record<string, unknown> | undefined)?.jkt;
    if (jkt === key.jkt) return pass(`cnf.jkt is the proof key's thumbprint`);
    return fail(jkt === undefined ? 'the DPoP-bound JWT access token has no cnf.jkt' : `cnf.jkt ${JSON.stringify(jkt)} is not the proof key's thumbprint ${key.jkt}`);
  },
};
