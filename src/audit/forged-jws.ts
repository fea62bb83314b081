import { createHmac, createPublicKey, sign, constants, type KeyObject } from 'node:crypto';
import { generateP256KeyPair } from '../oauth/p256-key.js';
import type { ClientCredentials } from '../oauth/token-request.js';

/**
 * JWS compact serialisations a well-behaved library refuses to make: the audit signs them by hand to
 * see whether the server accepts what RFC 8725 (JWT Best Current Practices) says it must refuse.
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The ways a JWT of the client is forged (RFC 8725 section 2: the attacks; section 3: what the receiver checks). */
export type Forgery =
  /** alg none, no signature (RFC 8725 §2.1). */
  | 'alg-none'
  /** HS256 keyed with the client's public key: algorithm confusion (RFC 8725 §2.1, §3.1). */
  | 'hs256-public-key'
  /** The client's own signature, one bit of it flipped. */
  | 'bad-signature'
  /** Signed with a fresh key that travels in the `jwk` header (trusting an embedded key, RFC 8725 §3.10). */
  | 'jwk-header'
  /** HS256 keyed with nothing, kid a path to an empty file (kid used as a file name, RFC 8725 §3.10). */
  | 'kid-injection'
  /** The client's own signature over a header with a critical extension nobody knows (RFC 7515 §4.1.11). */
  | 'crit';

/** A signer for the client's own key or secret, by JWS algorithm (RFC 7518 §3). */
function signWith(client: ClientCredentials, alg: string, input: string): Buffer {
  if (alg.startsWith('HS')) {
    if (client.clientSecret === undefined) throw new TypeError('an HMAC signature needs the client secret');
    return createHmac(`sha${alg.slice(2)}`, client.clientSecret)
      .update(input)
      .digest();
  }
  const key = client.signingKey?.key;
  if (key === undefined) throw new TypeError('a signature needs the client signing key');
  return signAsymmetric(key, alg, input);
}

/** A JWS compact serialisation signed with `key` as `alg` says, whatever the header claims. */
export function signCompact(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject, alg: string): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signAsymmetric(key, alg, input).toString('base64url')}`;
}

/** The same, with a signature that does not verify (its first bit flipped). */
export function withBrokenSignature(jws: string): string {
  const dot = jws.lastIndexOf('.');
  const signature = Buffer.from(jws.slice(dot + 1), 'base64url');
  signature[0] = (signature[0] ?? 0) ^ 1;
  return `${jws.slice(0, dot + 1)}${signature.toString('base64url')}`;
}

/** An unsigned JWS (alg none, RFC 7519 §6). */
export function unsecured(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  return `${b64({ ...header, alg: 'none' })}.${b64(claims)}.`;
}

/** HS256 over the header and claims with `secret`. */
export function hmacSigned(header: Record<string, unknown>, claims: Record<string, unknown>, secret: string): string {
  const input = `${b64({ ...header, alg: 'HS256' })}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

function signAsymmetric(key: KeyObject, alg: string, input: string): Buffer {
  const data = Buffer.from(input);
  if (alg === 'EdDSA') return sign(null, data, key);
  const hash = `sha${alg.slice(2)}`;
  if (alg.startsWith('ES')) return sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
  if (alg.startsWith('PS')) return sign(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  return sign(hash, data, key);
}

/** The algorithm the client signs with: its key's, or HS256 for client_secret_jwt. */
export function clientAlg(client: ClientCredentials): string {
  return client.authMethod === 'client_secret_jwt' ? 'HS256' : (client.signingKey?.alg ?? 'RS256');
}

/** A JWT with the client's claims, forged one way; `typ` is the header's (JWT for assertions, oauth-authz-req+jwt for request objects). */
export function forgeJwt(client: ClientCredentials, claims: Record<string, unknown>, forgery: Forgery, typ = 'JWT'): string {
  const alg = clientAlg(client);
  const kid = client.signingKey?.kid;
  const own = (header: Record<string, unknown>) => {
    const input = `${b64(header)}.${b64(claims)}`;
    return `${input}.${signWith(client, alg, input).toString('base64url')}`;
  };
  switch (forgery) {
    case 'alg-none':
      return unsecured({ typ }, claims);
    case 'hs256-public-key': {
      const key = client.signingKey?.key;
      if (key === undefined) throw new TypeError('algorithm confusion needs the client public key');
      const pem = createPublicKey(key).export({ type: 'spki', format: 'pem' });
      const input = `${b64({ alg: 'HS256', typ, ...(kid !== undefined && { kid }) })}.${b64(claims)}`;
      return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
    }
    case 'bad-signature':
      return withBrokenSignature(own({ alg, typ, ...(kid !== undefined && { kid }) }));
    case 'jwk-header': {
      const { privateKey, publicJwk } = generateP256KeyPair();
      return signCompact({ alg: 'ES256', typ, jwk: publicJwk, ...(kid !== undefined && { kid }) }, claims, privateKey, 'ES256');
    }
    case 'kid-injection':
      return hmacSigned({ typ, kid: '../../../../../../../dev/null' }, claims, '');
    case 'crit':
      return own({ alg, typ, ...(kid !== undefined && { kid }), crit: ['urn:oauthctl:audit:unknown'], 'urn:oauthctl:audit:unknown': true });
  }
}

/** Signed by the client as it should be, with claims a probe chose (an expiry in the past, no exp). */
export function signedJwt(client: ClientCredentials, claims: Record<string, unknown>, typ = 'JWT'): string {
  const alg = clientAlg(client);
  const kid = client.signingKey?.kid;
  const input = `${b64({ alg, typ, ...(kid !== undefined && { kid }) })}.${b64(claims)}`;
  return `${input}.${signWith(client, alg, input).toString('base64url')}`;
}
