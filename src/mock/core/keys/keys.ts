import { createHash, generateKeyPair, type KeyObject } from 'node:crypto';
import { jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { SigningAlg } from '../config/config.js';
import { base64urlJson } from '../tokens/jwt.js';
import { ID_JAG_TYP } from '../../../oauth/grant-types.js';
import { generateP256KeyPair } from '../../../oauth/p256-key.js';
import { createJwsSigner } from './signer.js';

/**
 * The mock's signing key, generated once at start-up and kept as a key object, so that no request
 * generates or imports a key. Loaded lazily (jose and key generation stay off the start-up path).
 * node:crypto generates the key and exports the JWK, jose verifies tokens; the hot path signs with node:crypto
 * on the cached key (a third of the CPU of a WebCrypto signature per token) in one signing thread fed
 * in batches (signer.ts), so the event loop serves other requests meanwhile. Interleaved A/B with
 * bench/mock.bench.mjs on 2 cores: signing on libuv's pool beat signing on the event loop (+13% flows/s
 * with ES256, +39% with RS256); the batched thread beats the pool with ES256 (+12% flows/s, -20% server
 * CPU per flow) and ties with RS256. Its answers come one signature at a time (+9% flows/s with ES256
 * over one answer per batch); signing the first of a batch on the event loop when the thread is idle,
 * or keeping one batch in flight at a time, lost (-5% and -12%): a token's latency counts for more
 * than the cost of a message (about 10 us to wake a sleeping thread on this 2-core VM, 2.5 us to a busy one).
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
  /** Back-Channel Logout 1.0 section 2.4: a logout token, `typ: logout+jwt`. */
  signLogoutToken(claims: JWTPayload): Promise<string>;
  /** An Identity Assertion JWT Authorization Grant, `typ: oauth-id-jag+jwt`. */
  signIdJag(claims: JWTPayload): Promise<string>;
  /** Checks signature, typ at+jwt, issuer and audience; resolves to the claims or rejects. */
  verifyAccessToken(token: string, issuer: string, audience: string | string[], now: number): Promise<JWTPayload>;
  /** Stops the signing thread. */
  close(): Promise<void>;
}

/**
 * A fresh key pair: P-256 made at once (well under a millisecond; src/oauth/p256-key.ts), RSA 2048 on
 * libuv's pool (a hundred milliseconds or more, which must not stall the event loop).
 */
function newKeyPair(alg: SigningAlg): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  if (alg === 'ES256') return Promise.resolve(generateP256KeyPair());
  return new Promise((resolve, reject) => generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey }))));
}

export async function createSigningKeys(alg: SigningAlg): Promise<SigningKeys> {
  const { privateKey, publicKey } = await newKeyPair(alg);
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  const publicJwk: JWK = { ...jwk, kid, alg, use: 'sig' };
  const signer = createJwsSigner(alg, privateKey);
  const encodedHeaders = new Map(['at+jwt', 'JWT', 'logout+jwt', ID_JAG_TYP].map((typ) => [typ, base64urlJson({ alg, typ, kid })]));
  // RFC 7515 section 7.1: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
  const signJwt = (claims: JWTPayload, typ: string) => signer.sign(`${encodedHeaders.get(typ)}.${base64urlJson(claims)}`);
  return {
    alg,
    kid,
    jwks: { keys: [publicJwk] },
    signAccessToken: (claims) => signJwt(claims, 'at+jwt'),
    signIdToken: (claims) => signJwt(claims, 'JWT'),
    signLogoutToken: (claims) => signJwt(claims, 'logout+jwt'),
    signIdJag: (claims) => signJwt(claims, ID_JAG_TYP),
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
