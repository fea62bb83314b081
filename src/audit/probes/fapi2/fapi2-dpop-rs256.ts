import type { JWK } from 'jose';
import { dpopProofClaims } from '../../../oauth/dpop.js';
import { nonceAsked } from '../../dpop-requests.js';
import { freshRsaKey } from '../../fapi2-algorithms.js';
import { describeExchange, issuedTokens } from '../../exchanges.js';
import { signCompact } from '../../forged-jws.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * FAPI 2.0 Security Profile section 5.4.1: a DPoP proof (RFC 9449 section 4.2) signed RS256 with a
 * fresh RSA key, otherwise right, gets no tokens, where the server takes DPoP at all.
 */
export const fapi2DpopRs256Probe: AuditProbe = {
  id: 'fapi2-dpop-rs256',
  title: 'a DPoP proof signed RS256 is refused',
  rfc: 'FAPI 2.0 SP §5.4.1',
  category: 'fapi2',
  threat: 'RSASSA-PKCS1-v1_5 (RS256) accepted where FAPI 2.0 allows only PS256, ES256 and EdDSA',
  remedy: 'Verify DPoP proofs with PS256, ES256 and EdDSA only, and announce only those in dpop_signing_alg_values_supported.',
  needsFlow: true,
  async run(ctx) {
    const algs = ctx.metadata?.dpop_signing_alg_values_supported;
    if (!Array.isArray(algs) || algs.length === 0) return skip('the metadata has no dpop_signing_alg_values_supported: the server does not take DPoP (RFC 9449 section 5.1)');
    const { privateKey, publicKey } = await freshRsaKey();
    const jwk = publicKey.export({ format: 'jwk' }) as JWK;
    const issued = await ctx.obtainCode();
    const send = (nonce?: string) => {
      const proof = signCompact({ typ: 'dpop+jwt', alg: 'RS256', jwk }, dpopProofClaims({ htm: 'POST', htu: ctx.config.tokenEndpoint, nonce }), privateKey, 'RS256');
      return ctx.redeem(issued, {}, undefined, { headers: { dpop: proof } });
    };
    const first = await send();
    const nonce = nonceAsked(first);
    const exchange = nonce !== undefined ? await send(nonce) : first;
    if (issuedTokens(exchange)) return fail(`tokens were issued for an RS256 DPoP proof (token_type ${String((exchange.json as Record<string, unknown>).token_type)})`);
    if (exchange.error?.error !== 'invalid_dpop_proof') return warn(`refused, but with ${describeExchange(exchange)} rather than invalid_dpop_proof (RFC 9449 section 5)`);
    return pass(`refused: ${describeExchange(exchange)}`);
  },
};
