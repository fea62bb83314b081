import { createHash, KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { SigningAlg } from './config.js';
import { base64urlJson } from './jwt.js';
import { createJwsSigner } from './signer.js';

/**
 * The mock's signing key, generated once at start-up and kept as a key object, so that no request
 * generates or imports a key. Loaded lazily (jose and key generation stay off the start-up path).
 * jose generates the key, publishes the JWK and verifies tokens; the hot path signs with node:crypto
 * on the cached key (a third of the CPU of a WebCrypto signature per token) in one signing thread fed
 * in batches (signer.ts), so the event loop serves other requests meanwhile. Interleaved A/B with
 * bench/mock.bench.mjs on 2 cores: signing on libuv's pool beat signing on the event loop (+13% flows/s
 * with ES256, +39% with RS256); the batched thread beats the pool with ES256 (+12% flows/s, -20% server
 * CPU per flow) and ties with RS256.
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
  /** Stops the signing thread. */
  close(): Promise<void>;
}

export async function createSigningKeys(alg: SigningAlg): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  const publicJwk: JWK = { ...jwk, kid, alg, use: 'sig' };
  const key = KeyObject.from(privateKey);
  const signer = createJwsSigner(alg, key);
  const encodedHeaders = new Map(['at+jwt', 'JWT'].map((typ) => [typ, base64urlJson({ alg, typ, kid })]));
  // RFC 7515 section 7.1: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
  const signJwt = (claims: JWTPayload, typ: string) => signer.sign(`${encodedHeaders.get(typ)}.${base64urlJson(claims)}`);
  return {
    alg,
    kid,
    jwks: { keys: [publicJwk] },
    signAccessToken: (claims) => signJwt(claims, 'at+jwt'),
    signIdToken: (claims) => signJwt(claims, 'JWT'),
    close: () => signer.close(),
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
