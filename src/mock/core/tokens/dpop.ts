import { createHmac } from 'node:crypto';
import { accessTokenHash, sameHtu } from '../../../oauth/dpop.js';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { DPOP_ALGS } from '../config/config-security.js';
import { fapi2AlgRefusal } from '../../../oauth/fapi2.js';
import type { Exchange } from '../http/http.js';
import { securityOf } from '../store/security-store.js';
import { StoreFullError } from '../store/expiring-map.js';

/** How far a proof's iat may be from the server's clock, either way (RFC 9449 section 11.1). */
export const DPOP_IAT_WINDOW_SECONDS = 60;
const NONCE_PERIOD_MS = 5 * 60 * 1000;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export type DpopCheck = { ok: true; jkt: string } | { ok: false; error: 'invalid_dpop_proof' | 'use_dpop_nonce'; description: string };

export interface DpopExpectation {
  /** The request's method and URL (htm, htu). */
  htm: string;
  htu: string;
  /** The access token presented with the proof: ath must be its hash (RFC 9449 section 4.3, item 11). */
  accessToken?: string;
}

/**
 * Checks the DPoP proof of a request (RFC 9449 section 4.3): exactly one DPoP header, a JWT with
 * typ dpop+jwt, an asymmetric supported alg, a public jwk (no private members) that verifies the
 * signature, htm and htu of this request (htu without query and fragment, compared as URLs), iat
 * within 60 s of the server's clock, a jti never seen before, ath when an access token goes with it,
 * and the server's nonce when the configuration asks for one. Undefined when the request has no proof.
 */
export async function checkDpopProof(ex: Exchange, expected: DpopExpectation): Promise<DpopCheck | undefined> {
  // Node joins repeated headers it does not know into one value: the raw headers tell how many were sent.
  const proof = ex.req.headers.dpop as string | undefined;
  if (proof === undefined) return undefined;
  const invalid = (description: string): DpopCheck => ({ ok: false, error: 'invalid_dpop_proof', description });
  const sent = ex.req.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'dpop').length;
  if (sent > 1) return invalid('more than one DPoP header (RFC 9449 section 4.3)');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return invalid('the DPoP header is not a JWT');
  }
  if (header.typ !== 'dpop+jwt') return invalid('the DPoP proof must have typ dpop+jwt (RFC 9449 section 4.2)');
  if (typeof header.alg !== 'string' || !DPOP_ALGS.includes(header.alg)) return invalid(`the DPoP proof's alg must be one of ${DPOP_ALGS.join(', ')}`);
  if (ex.state.config.securityProfile === 'fapi2') {
    const refusal = fapi2AlgRefusal('the DPoP proof', header.alg);
    if (refusal !== undefined) return invalid(refusal);
  }
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (typeof jwk !== 'object' || jwk === null) return invalid('the DPoP proof has no jwk header (RFC 9449 section 4.2)');
  // FAPI 2.0 Security Profile section 5.4.1: EdDSA with Ed25519 only.
  if (ex.state.config.securityProfile === 'fapi2' && header.alg === 'EdDSA' && jwk.crv !== 'Ed25519')
    return invalid('the DPoP proof is signed EdDSA with a key that is not Ed25519; FAPI 2.0 Security Profile section 5.4.1 allows only Ed25519');
  const secret = PRIVATE_MEMBERS.find((m) => jwk[m] !== undefined);
  if (secret) return invalid(`the DPoP proof's jwk holds private key material (${secret}); send the public key only (RFC 9449 section 4.2)`);
  const nowMs = ex.state.now();
  let payload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: DPOP_ALGS, currentDate: new Date(nowMs), requiredClaims: ['jti', 'htm', 'htu', 'iat'] }));
  } catch (err) {
    return invalid(`the DPoP proof is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof payload.jti !== 'string' || payload.jti === '') return invalid('the DPoP proof has no jti');
  if (payload.htm !== expected.htm) return invalid(`the DPoP proof's htm must be ${expected.htm}`);
  if (typeof payload.htu !== 'string' || !sameHtu(payload.htu, expected.htu)) return invalid(`the DPoP proof's htu must be ${expected.htu}`);
  const now = Math.floor(nowMs / 1000);
  const iat = payload.iat!;
  if (Math.abs(now - iat) > DPOP_IAT_WINDOW_SECONDS) return invalid(`the DPoP proof's iat is more than ${DPOP_IAT_WINDOW_SECONDS} seconds from the server's time`);
  if (expected.accessToken !== undefined) {
    if (payload.ath !== accessTokenHash(expected.accessToken)) return invalid("the DPoP proof's ath is not the hash of the access token (RFC 9449 section 4.3)");
  }
  if (ex.state.config.dpopNonce && !validNonce(ex, payload.nonce)) {
    return { ok: false, error: 'use_dpop_nonce', description: 'the DPoP proof must carry the nonce of the DPoP-Nonce header (RFC 9449 section 8)' };
  }
  const seen = securityOf(ex.state.store, ex.state.now).dpopProofs.use(payload.jti, (iat + DPOP_IAT_WINDOW_SECONDS + 1) * 1000);
  if (seen === 'replayed') return invalid('the DPoP proof was already used (its jti was seen before, RFC 9449 section 11.1)');
  // Full of live jtis: refused (503) rather than forgetting one that could then be replayed.
  if (seen === 'busy') throw new StoreFullError('live DPoP proofs', 1);
  return { ok: true, jkt: await calculateJwkThumbprint(jwk as JWK, 'sha256') };
}

/** The server's current DPoP nonce (RFC 9449 section 8): a MAC of the time period, so nothing is stored. */
export function currentNonce(ex: Exchange): string {
  return nonceFor(ex, Math.floor(ex.state.now() / NONCE_PERIOD_MS));
}

function nonceFor(ex: Exchange, period: number): string {
  return createHmac('sha256', securityOf(ex.state.store, ex.state.now).nonceKey).update(String(period)).digest('base64url');
}

/** The current nonce or the one before it (a client that just fetched one is not refused at the turn of a period). */
function validNonce(ex: Exchange, nonce: unknown): boolean {
  if (typeof nonce !== 'string') return false;
  const period = Math.floor(ex.state.now() / NONCE_PERIOD_MS);
  return nonce === nonceFor(ex, period) || nonce === nonceFor(ex, period - 1);
}

/** The DPoP-Nonce header to send with a response, when the configuration asks for nonces. */
export function nonceHeader(ex: Exchange): Record<string, string> {
  return ex.state.config.dpopNonce ? { 'DPoP-Nonce': currentNonce(ex) } : {};
}
