import { createHash, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { randomToken } from './random.js';

/** A DPoP key pair (RFC 9449 section 2): the private key signs proofs, the public JWK goes in their header. */
export interface DpopKey {
  privateKey: KeyObject;
  publicJwk: JWK;
  alg: 'ES256';
  /** RFC 9449 section 10: the JWK SHA-256 thumbprint (RFC 7638), sent as dpop_jkt. */
  jkt: string;
}

/** What a proof is for: the request's method and URI, the server's nonce, and with a resource request the token. */
export interface DpopProofInput {
  htm: string;
  htu: string;
  nonce?: string | undefined;
  accessToken?: string | undefined;
  /** Seconds since the epoch; default now. */
  iat?: number;
  jti?: string;
}

/** RFC 9449 section 4.2: htu is the target URI without query and fragment. */
export function dpopHtu(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  return u.href;
}

/**
 * RFC 9449 section 4.3 item 9: a proof's htu matches the request's URI when both, without query and
 * fragment, are the same URL once normalised (RFC 3986 section 6: scheme and host case, default port).
 */
export function sameHtu(htu: string, requestUri: string): boolean {
  try {
    const a = new URL(htu);
    const b = new URL(requestUri);
    return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

/** RFC 9449 section 4.2: ath is base64url(SHA-256(access token)). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** The claims of a proof: jti, htm, htu, iat, and nonce and ath when given (RFC 9449 section 4.2). */
export function dpopProofClaims(input: DpopProofInput): Record<string, string | number> {
  const claims: Record<string, string | number> = {
    jti: input.jti ?? randomToken(128),
    htm: input.htm.toUpperCase(),
    htu: dpopHtu(input.htu),
    iat: input.iat ?? Math.floor(Date.now() / 1000),
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  if (input.accessToken !== undefined) claims.ath = accessTokenHash(input.accessToken);
  return claims;
}

/** A DPoP proof JWT: header typ dpop+jwt with the public JWK (RFC 9449 section 4.2). */
export async function createDpopProof(key: DpopKey, input: DpopProofInput): Promise<string> {
  // jose is loaded when a proof is first signed: a login without DPoP never pays for it.
  const { SignJWT } = await import('jose/jwt/sign');
  return new SignJWT(dpopProofClaims(input)).setProtectedHeader({ typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk }).sign(key.privateKey);
}

/** The public part of a JWK and its thumbprint. */
export async function dpopJkt(publicJwk: JWK): Promise<string> {
  const { calculateJwkThumbprint } = await import('jose/jwk/thumbprint');
  return calculateJwkThumbprint(publicJwk, 'sha256');
}
