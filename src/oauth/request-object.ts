import { randomToken } from './random.js';
import type { ClientSigningKey } from './token-request.js';

/** How long a request object is good for. */
export const REQUEST_OBJECT_LIFETIME_SECONDS = 300;

/**
 * The claims of a request object (RFC 9101 section 4): every authorization request parameter (a
 * repeated one as an array), plus iss = client_id, aud = the issuer, exp, nbf, iat and a fresh jti.
 */
export function requestObjectClaims(params: URLSearchParams, clientId: string, audience: string, nowSeconds: number): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    claims[name] = values.length > 1 ? values : values[0];
  }
  return { ...claims, iss: clientId, aud: audience, iat: nowSeconds, nbf: nowSeconds, exp: nowSeconds + REQUEST_OBJECT_LIFETIME_SECONDS, jti: randomToken(128) };
}

/** Signs a request object (RFC 9101 section 4; typ per section 10.8). */
export async function signRequestObject(claims: Record<string, unknown>, key: ClientSigningKey): Promise<string> {
  const { SignJWT } = await import('jose/jwt/sign');
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'oauth-authz-req+jwt', ...(key.kid !== undefined && { kid: key.kid }) }).sign(key.key);
}
