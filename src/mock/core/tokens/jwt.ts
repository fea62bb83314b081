import { hash, randomUUID } from 'node:crypto';

/** OpenID Connect Core 3.1.3.6: at_hash is the left half of the SHA-256 of the access token (RS256, ES256). */
export function accessTokenHash(accessToken: string): string {
  return hash('sha256', accessToken, 'buffer').subarray(0, 16).toString('base64url');
}

export const newJti = (): string => randomUUID();

/** BASE64URL(UTF8(JSON)) of a JWS header or payload (RFC 7515 section 7.1). */
export function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
