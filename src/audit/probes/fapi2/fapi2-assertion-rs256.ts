import { decodeJwtUnverified } from '../../../oauth/jwt.js';
import { rsaClientKey } from '../../fapi2-algorithms.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { signCompact } from '../../forged-jws.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/**
 * FAPI 2.0 Security Profile section 5.4.1: a client assertion (RFC 7523 section 3) signed RS256 with the
 * client's own RSA key, otherwise right, gets no tokens. Only a client with an RSA key can ask it.
 */
export const fapi2AssertionRs256Probe: AuditProbe = {
  id: 'fapi2-assertion-rs256',
  title: "a client assertion signed RS256 with the client's key is refused",
  rfc: 'FAPI 2.0 SP §5.4.1',
  category: 'fapi2',
  threat: 'RSASSA-PKCS1-v1_5 (RS256) accepted where FAPI 2.0 allows only PS256, ES256 and EdDSA',
  remedy: 'Verify private_key_jwt assertions with PS256, ES256 and EdDSA only (token_endpoint_auth_signing_alg_values_supported).',
  needsFlow: true,
  async run(ctx) {
    const key = rsaClientKey(ctx);
    const claims = decodeJwtUnverified(await ctx.clientAssertion())?.claims ?? {};
    const assertion = signCompact({ alg: 'RS256', typ: 'JWT', ...(key.kid !== undefined && { kid: key.kid }) }, claims, key.key, 'RS256');
    const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: assertion });
    if (issuedTokens(exchange)) return fail('tokens were issued for a client assertion signed RS256');
    if (exchange.error?.error !== 'invalid_client') return warn(`refused, but with ${describeExchange(exchange)} rather than invalid_client (RFC 6749 section 5.2)`);
    return pass(`refused: ${describeExchange(exchange)}`);
  },
};
