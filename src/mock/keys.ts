import { createHash, KeyObject, sign } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { SigningAlg } from './config.js';
import { base64urlJson } from './jwt.js';

/**
 * The mock's signing key, generated once at start-up and kept as a key object, so that no request
 * generates or imports a key. Loaded lazily (jose and key generation stay off the start-up path).
 * jose generates the key, publishes the JWK and verifies tokens; the hot path signs with node:crypto
 * on the cached KeyObject (a third of the CPU of a WebCrypto signature per token), in the thread pool,
 * so the event loop serves other requests meanwhile (an interleaved A/B with bench/mock.bench.mjs on
 * 2 cores: +13% flows/s with ES256, +39% with RS256 over signing on the event loop).
 */
export interface SigningKeys {
  alg: SigningAlg;
  kid: string;
  /** The public JWK Set served at /jwks (RFC 7517 section 5). */
  jwks: { keys: JWK[] };
  /** RFC 9068: a JWT access token, `typ: at+jwt`. */
  signAccessToken(claims: JWTPayload): Promise<string>;
  /** OpenID Connect Core 2: an ID token, `typ: JWT`. */
  signIdToken(claims: JWTPayload): Promise<string>;
  /** Checks signature, typ at+jwt, issuer and audience; resolves to the claims or rejects. */
  verifyAccessToken(token: string, issuer: string, audience: string, now: number): Promise<JWTPayload>;
}

export async function createSigningKeys(alg: SigningAlg): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  const publicJwk: JWK = { ...jwk, kid, alg, use: 'sig' };
  const key = KeyObject.from(privateKey);
  const signer = alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;
  const encodedHeaders = new Map(['at+jwt', 'JWT'].map((typ) => [typ, base64urlJson({ alg, typ, kid })]));
  // RFC 7515 section 7.1: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
  const signJwt = (claims: JWTPayload, typ: string) =>
    new Promise<string>((resolve, reject) => {
      const input = `${encodedHeaders.get(typ)}.${base64urlJson(claims)}`;
      // The callback form signs on libuv's thread pool: the event loop goes on serving meanwhile.
      sign('sha256', Buffer.from(input), signer, (err, signature) => (err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`)));
    });
  return {
    alg,
    kid,
    jwks: { keys: [publicJwk] },
    signAccessToken: (claims) => signJwt(claims, 'at+jwt'),
    signIdToken: (claims) => signJwt(claims, 'JWT'),
    async verifyAccessToken(token, issuer, audience, now) {
      const { payload } = await jwtVerify(token, publicKey, {
        algorithms: [alg],
        issuer,
        audience,
        typ: 'at+jwt',
        currentDate: new Date(now),
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
      });
      return payload;
    },
  };
}
