import { base64urlJson } from './jwt.js';
import type { BrokenTokenKind } from './queue.js';
import type { AccessTokenClaims } from '../store/store.js';

export const WRONG_ISSUER = 'https://wrong-issuer.invalid';
export const WRONG_AUDIENCE = 'https://wrong-audience.invalid';

/** Kinds that need a signature to break: not possible with opaque access tokens. */
export const SIGNATURE_KINDS: readonly BrokenTokenKind[] = ['bad-signature', 'alg-none'];

/**
 * The claims of a broken access token: `expired` keeps the lifetime but ends it a minute ago;
 * `wrong-issuer` and `wrong-audience` name a server and a resource that are not this mock's.
 */
export function brokenClaims(claims: AccessTokenClaims, kind: BrokenTokenKind, nowMs: number): AccessTokenClaims {
  if (kind === 'expired') {
    const exp = Math.floor(nowMs / 1000) - 60;
    return { ...claims, exp, iat: exp - (claims.exp - claims.iat) };
  }
  if (kind === 'wrong-issuer') return { ...claims, iss: WRONG_ISSUER };
  if (kind === 'wrong-audience') return { ...claims, aud: WRONG_AUDIENCE };
  return claims;
}

/**
 * A signed JWT broken after signing: `bad-signature` changes the signature's first character (same
 * length, no longer the key's), `alg-none` is the unsecured JWT of RFC 7519 section 6.1 (header
 * `{"alg":"none"}`, empty signature), which a validator must refuse.
 */
export function brokenSignature(jwt: string, claims: AccessTokenClaims, kind: BrokenTokenKind): string {
  if (kind === 'alg-none') return `${base64urlJson({ alg: 'none', typ: 'at+jwt' })}.${base64urlJson(claims)}.`;
  if (kind !== 'bad-signature') return jwt;
  const dot = jwt.lastIndexOf('.');
  const first = jwt[dot + 1];
  return `${jwt.slice(0, dot + 1)}${first === 'A' ? 'B' : 'A'}${jwt.slice(dot + 2)}`;
}
