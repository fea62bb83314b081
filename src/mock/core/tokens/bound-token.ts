import { allowedAlgs, DPOP_ALGS } from '../config/config-security.js';
import { checkDpopProof, nonceHeader } from './dpop.js';
import type { Exchange } from '../http/http.js';
import { certificateThumbprint, peerCertificate } from '../clients/mtls.js';
import type { AccessTokenClaims } from '../store/store.js';

export type TokenScheme = 'Bearer' | 'DPoP';

/** A refusal at the protected API: the error, and the headers that go with it. */
export interface PossessionProblem {
  error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  description: string;
  headers: Record<string, string>;
}

/** The challenge's scheme: DPoP for a DPoP request or a DPoP-bound token (RFC 9449 section 7.1), else Bearer. */
export function challengeScheme(scheme: TokenScheme, claims?: AccessTokenClaims): TokenScheme {
  return scheme === 'DPoP' || claims?.cnf?.jkt !== undefined ? 'DPoP' : 'Bearer';
}

/** The DPoP challenge's algs parameter (RFC 9449 section 7.1): those the mock accepts (FAPI 2.0 mode: section 5.4.1's). */
export function dpopChallengeAlgs(config: { securityProfile?: 'fapi2' | undefined }): string {
  return `algs="${allowedAlgs(config, DPOP_ALGS).join(' ')}"`;
}

/**
 * A bound access token's proof of possession at the protected API: for a DPoP-bound one (cnf.jkt),
 * `Authorization: DPoP` and a proof for this request (htm, htu, ath) by the bound key (RFC 9449
 * section 7); a DPoP token is never accepted as Bearer, nor a token that is not DPoP-bound as DPoP.
 * For a certificate-bound one (cnf.x5t#S256), the caller's TLS client certificate must be the bound
 * one (RFC 8705 section 3). Undefined when the token may be used.
 */
export async function possessionProblem(ex: Exchange, scheme: TokenScheme, token: string, claims: AccessTokenClaims): Promise<PossessionProblem | undefined> {
  const jkt = claims.cnf?.jkt;
  const refuse = (error: PossessionProblem['error'], description: string, headers: Record<string, string> = {}): PossessionProblem => ({ error, description, headers });
  if (scheme === 'Bearer' && jkt !== undefined) return refuse('invalid_token', 'the access token is DPoP-bound: present it with Authorization: DPoP and a DPoP proof (RFC 9449 section 7.1)');
  if (scheme === 'DPoP') {
    if (jkt === undefined) return refuse('invalid_token', 'the access token is not DPoP-bound: present it as Bearer');
    const proof = await checkDpopProof(ex, { htm: ex.req.method ?? 'GET', htu: `${ex.state.issuer}${ex.path}`, accessToken: token });
    if (!proof) return refuse('invalid_dpop_proof', 'a DPoP proof is required with a DPoP-bound access token (RFC 9449 section 7.1)');
    if (!proof.ok) return refuse(proof.error, proof.description, proof.error === 'use_dpop_nonce' ? nonceHeader(ex) : {});
    if (proof.jkt !== jkt) return refuse('invalid_dpop_proof', 'the DPoP proof is signed by another key than the one the access token is bound to (RFC 9449 section 7.1)');
  }
  const x5t = claims.cnf?.['x5t#S256'];
  if (x5t !== undefined) {
    const peer = peerCertificate(ex);
    if (!peer || certificateThumbprint(peer.certificate) !== x5t) {
      return refuse('invalid_token', 'the access token is bound to a client certificate that this connection did not present (RFC 8705 section 3)');
    }
  }
  return undefined;
}
