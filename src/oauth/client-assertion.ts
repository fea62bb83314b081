import { randomToken } from './random.js';
import type { ClientCredentials } from './token-request.js';

/** How long a client assertion is good for: short, as RFC 7523 section 3 item 4 advises. */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 60;

/** The claims of a client assertion (RFC 7523 section 3, OpenID Connect Core section 9). */
export interface ClientAssertionClaims {
  iss: string;
  sub: string;
  aud: string;
  jti: string;
  iat: number;
  exp: number;
}

/** iss = sub = client_id, aud the authorization server, a fresh jti, iat now and exp 60 s later. */
export function clientAssertionClaims(clientId: string, audience: string, nowSeconds: number, jti: string = randomToken(128)): ClientAssertionClaims {
  return { iss: clientId, sub: clientId, aud: audience, jti, iat: nowSeconds, exp: nowSeconds + CLIENT_ASSERTION_LIFETIME_SECONDS };
}

/**
 * Signs a client assertion: private_key_jwt with the client's private key, client_secret_jwt with HS256
 * keyed by the client secret (OpenID Connect Core section 9). A new one for every request.
 */
export async function signClientAssertion(client: ClientCredentials, claims: ClientAssertionClaims): Promise<string> {
  const { SignJWT } = await import('jose/jwt/sign');
  if (client.authMethod === 'client_secret_jwt') {
    if (client.clientSecret === undefined) throw new TypeError('client_secret_jwt needs a client secret');
    return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(client.clientSecret));
  }
  const key = client.signingKey;
  if (key === undefined) throw new TypeError('private_key_jwt needs a signing key');
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid !== undefined && { kid: key.kid }) }).sign(key.key);
}
