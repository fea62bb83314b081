import { createDpopProof, type DpopKey } from '../../oauth/dpop.js';
import { decodeJwtUnverified } from '../../oauth/jwt.js';
import { bearerError } from '../../oauth/www-authenticate.js';
import type { HttpResponse } from '../http/http.js';
import { parseJson } from '../../oauth/json.js';

/**
 * One DPoP key in use (RFC 9449) and the nonces servers gave it, per origin (section 8: a server's
 * DPoP-Nonce is sent in the next proof to it, and replaced whenever the server sends a new one).
 */
export class DpopSession {
  private readonly nonces = new Map<string, string>();

  constructor(readonly key: DpopKey) {}

  /** A fresh proof for one request; with an access token (a resource request) it carries ath. */
  proof(method: string, url: string, accessToken?: string): Promise<string> {
    return createDpopProof(this.key, { htm: method, htu: url, nonce: this.nonces.get(new URL(url).origin), accessToken });
  }

  /** Keeps the DPoP-Nonce a response carries. True when it was a new one. */
  rememberNonce(url: string, res: Pick<HttpResponse, 'headers'>): boolean {
    const nonce = res.headers['dpop-nonce'];
    if (nonce === undefined || nonce === '') return false;
    const origin = new URL(url).origin;
    const changed = this.nonces.get(origin) !== nonce;
    this.nonces.set(origin, nonce);
    return changed;
  }
}

/**
 * The server asks for a nonce: an authorization server with a use_dpop_nonce error (RFC 9449 section 8),
 * a resource server with a 401 whose DPoP challenge says use_dpop_nonce (section 9).
 */
export function asksForDpopNonce(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>): boolean {
  if (res.headers['dpop-nonce'] === undefined) return false;
  if (res.status === 400) {
    try {
      return (parseJson(res.body) as { error?: unknown }).error === 'use_dpop_nonce';
    } catch {
      return false;
    }
  }
  if (res.status === 401) return bearerError(res.headers['www-authenticate'], 'DPoP')?.error === 'use_dpop_nonce';
  return false;
}

/** A proof's header and claims for the narration: the key shown by its thumbprint, the signature left out. */
export function describeDpopProof(proof: string, key: DpopKey, showSecrets: boolean): string {
  const decoded = decodeJwtUnverified(proof);
  if (!decoded) return '(not a JWT)';
  const header = showSecrets ? decoded.header : { ...decoded.header, jwk: `[${key.publicJwk.kty} ${key.publicJwk.crv} public key, thumbprint ${key.jkt}]` };
  return `header ${JSON.stringify(header)} claims ${JSON.stringify(decoded.claims)}`;
}
